package configs_test

import (
	"os"
	"strings"
	"testing"

	"weft/configs"
)

// FuzzLoadBytes checks that Parse never panics, that every error names the
// file, and that whatever it accepts survives a TOML round trip.
func FuzzLoadBytes(f *testing.F) {
	def, err := os.ReadFile("presets/default.toml")
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{
		string(def),
		configs.Default().TOML(),
		"",
		"[sim]\nseed = 7\n",
		"machine.cores = 100\n",
		"cache.l1 = { size_bytes = 4096, assoc = 2 }\n",
		"[cache.l1]\nsise_bytes = 5\n",
		"[cache.l1]\nsize_bytes = \"64k\"\n",
		"[sim\nseed = 1\n",
		"[[sim]]\nseed = 1\n",
		"cache = 5\n",
		"[cache]\nl1 = [1, 2]\n",
		"sim.seed = -1\n",
		"sim.seed = 1.5e3\n",
		"sim.seed = 1979-05-27T07:32:00Z\n",
		"[sim]\nseed = 1\nseed = 2\n",
		"a = \"\"\"\nunterminated\n",
		"\xff\xfe[sim]\n",
		"[bus]\nwidth_bytes = 99999999999999999999\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := configs.Parse("fuzz.toml", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.toml") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		_ = c.Validate()
		back, err := configs.Parse("back.toml", []byte(c.TOML()))
		if err != nil {
			t.Fatalf("TOML() does not parse: %v\n%s", err, c.TOML())
		}
		if back != c {
			t.Fatalf("round trip = %+v, want %+v", back, c)
		}
	})
}
