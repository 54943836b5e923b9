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

// TestSplitL2Preset checks the split-l2 preset: the split bus with a
// separate data bus, a 1 MiB 8-way L2 at 10 cycles, memory at 200 cycles,
// every other key at its default; and that it is a machine weft builds.
func TestSplitL2Preset(t *testing.T) {
	got, err := configs.Preset("split-l2")
	if err != nil {
		t.Fatal(err)
	}
	want := configs.Default()
	want.Bus.Kind, want.Bus.DataBus = configs.BusSplit, configs.DataBusSeparate
	want.Cache.L2.SizeBytes, want.Cache.L2.Assoc, want.Cache.L2.HitCycles = 1<<20, 8, 10
	want.Memory.LatencyCycles = 200
	if got != want {
		t.Errorf("split-l2 = %+v\nwant %+v", got, want)
	}
	if err := got.Validate(); err != nil {
		t.Error(err)
	}
}
