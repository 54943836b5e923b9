package configs_test

import (
	"os"
	"strings"
	"testing"

	"weft/configs"
)

// TestBugabooMicro09Preset checks the preset of Bugaboo's machine
// (Lucia and Ceze, MICRO 2009): 16 cores with private 32 KB 8-way L1s
// of 64 B lines, every other key at its default.
func TestBugabooMicro09Preset(t *testing.T) {
	got, err := configs.Preset("bugaboo-micro09")
	if err != nil {
		t.Fatal(err)
	}
	want := configs.Default()
	want.Machine.Cores = 16
	want.Cache.L1.SizeBytes = 32 << 10
	want.Cache.L1.Assoc = 8
	want.Cache.L1.LineBytes = 64
	if got != want {
		t.Errorf("bugaboo-micro09 = %+v\nwant %+v", got, want)
	}
}

// TestPresetKeysCommented checks every key of every preset has a comment
// line above it.
func TestPresetKeysCommented(t *testing.T) {
	for _, name := range configs.PresetNames() {
		data, err := os.ReadFile("presets/" + name + ".toml")
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		for i, line := range lines {
			if !strings.Contains(line, "=") || strings.HasPrefix(line, "#") {
				continue
			}
			if i == 0 || !strings.HasPrefix(lines[i-1], "#") {
				t.Errorf("%s.toml:%d: %q has no comment above it", name, i+1, line)
			}
		}
	}
}
