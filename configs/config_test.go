package configs_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"weft/configs"
)

// designTable is DESIGN.md §7's table of keys and defaults, in its order.
var designTable = []struct{ key, value string }{
	{"sim.seed", "1"},
	{"sim.max_cycles", "100000000"},
	{"sim.jitter_cycles", "4"},
	{"sim.start_skew_cycles", "0"},
	// Falcon's irritators, off.
	{"sim.irritator_prob", "0.0"},
	{"sim.irritator_max_cycles", "0"},
	{"machine.cores", "8"},
	{"cpu.alu_cycles", "1"},
	{"cache.l1.size_bytes", "32768"},
	{"cache.l1.assoc", "8"},
	{"cache.l1.line_bytes", "64"},
	{"cache.l1.hit_cycles", "1"},
	// No L2 (size 0); its other keys are what an L2 gets when sized.
	{"cache.l2.size_bytes", "0"},
	{"cache.l2.assoc", "8"},
	{"cache.l2.line_bytes", "64"},
	{"cache.l2.hit_cycles", "10"},
	{"bus.width_bytes", "32"},
	{"bus.arbitration_cycles", "2"},
	{"bus.snoop_cycles", "4"},
	{"bus.c2c_cycles", "10"},
	{"bus.kind", "atomic"},
	{"bus.data_bus", "separate"},
	{"memory.latency_cycles", "100"},
	// The Bugaboo hardware: the paper's reading (digest §5.2, §5.5), off.
	{"bugaboo.enabled", "false"},
	{"bugaboo.context.size", "5"},
	{"bugaboo.context.distinct_empty", "false"},
	{"bugaboo.context.lcrd_on_memory_miss", "false"},
	{"bugaboo.context.rmrd_states", "owner"},
	{"bugaboo.context.save_on_switch", "false"},
	{"bugaboo.metadata.pc_bits", "64"},
	{"bugaboo.metadata.update_on", "write_or_upgrade_miss"},
	{"bugaboo.metadata.read_fill", "copy_supplier"},
	{"bugaboo.metadata.memory_fill", "null"},
	{"bugaboo.ct.organization", "per_core"},
	{"bugaboo.ct.entries", "16384"},
	{"bugaboo.ct.record_memory_misses", "true"},
	{"bugaboo.ct.inval_ack_entries", "per_sharer"},
	{"bugaboo.ct.drop_during_trap", "true"},
	{"bugaboo.ct.trap_cycles", "5000"},
	{"bugaboo.ct.drain_cycles_per_entry", "10"},
	{"bugaboo.ct.spare_core_drain", "false"},
	// The PSet hardware: the digest's reading (§5.2), off.
	{"pset.enabled", "false"},
	{"pset.granularity", "word"},
	{"pset.max_readers_tracked", "4"},
	{"pset.metadata_on_evict", "lost"},
	{"pset.untested_policy", "null"},
	{"pset.include_sync_ops", "true"},
	{"pset.check_base_cycles", "2"},
	{"pset.check_per_entry_cycles", "1"},
	{"pset.recovery.mode", "stall"},
	{"pset.recovery.stall_timeout_cycles", "100000"},
	{"pset.recovery.checkpoint_interval_instrs", "100000"},
	{"pset.recovery.max_rollbacks_per_checkpoint", "3"},
	{"pset.recovery.perturbation", "delay_predecessor"},
	{"pset.recovery.perturb_delay_cycles", "5000"},
	{"falcon.window", "5"},
	{"falcon.granularity", "word"},
	{"falcon.score", "jaccard"},
	{"falcon.scope", "app"},
	{"falcon.key_by_addr", "false"},
	{"conseq.max_distance", "4"},
	{"conseq.model", "statement"},
	{"conseq.sites", "OUT,ASS,ERR,LOOP,INV"},
	{"conseq.adhoc_sync", "true"},
	{"conseq.assert_routines", ""},
	{"conseq.error_routines", ""},
	{"conseq.output_routines", ""},
	{"conseq.invariant_runs", "0"},
	{"conseq.test_timeout_cycles", "50000"},
}

func TestDefaultsMatchDesign(t *testing.T) {
	c := configs.Default()
	var keys []string
	for _, row := range designTable {
		keys = append(keys, row.key)
		got, err := configs.Get(c, row.key)
		if err != nil {
			t.Errorf("Get(%s): %v", row.key, err)
			continue
		}
		if got != row.value {
			t.Errorf("default %s = %s, want %s", row.key, got, row.value)
		}
	}
	if got := configs.Keys(); !reflect.DeepEqual(got, keys) {
		t.Errorf("Keys() = %v\nwant     %v", got, keys)
	}
	if err := c.Validate(); err != nil {
		t.Errorf("Default().Validate() = %v", err)
	}
}

func TestPresets(t *testing.T) {
	names := configs.PresetNames()
	if !strings.Contains(","+strings.Join(names, ",")+",", ",default,") {
		t.Fatalf("PresetNames() = %v, want it to include default", names)
	}
	for i := 1; i < len(names); i++ {
		if names[i-1] >= names[i] {
			t.Errorf("PresetNames() not sorted: %v", names)
		}
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			p, err := configs.Preset(name)
			if err != nil {
				t.Fatalf("Preset: %v", err)
			}
			l, err := configs.Load(name)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if p != l {
				t.Errorf("Preset(%q) != Load(%q)", name, name)
			}
		})
	}
	def, err := configs.Preset("default")
	if err != nil {
		t.Fatal(err)
	}
	if def != configs.Default() {
		t.Errorf("preset default = %+v\nwant Default() = %+v", def, configs.Default())
	}
	if _, err := configs.Preset("nope"); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf(`Preset("nope") error = %v, want one naming the preset`, err)
	}
	if _, err := configs.Preset("../presets/default"); err == nil {
		t.Errorf("Preset with a path succeeded")
	}
}

// The default preset spells out every key, each with a comment above it.
func TestDefaultPresetListsEveryKey(t *testing.T) {
	data, err := os.ReadFile("presets/default.toml")
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	md, err := toml.Decode(string(data), &raw)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range configs.Keys() {
		if !md.IsDefined(strings.Split(key, ".")...) {
			t.Errorf("default.toml does not set %s", key)
		}
	}
	lines := strings.Split(string(data), "\n")
	for i, line := range lines {
		if !strings.Contains(line, "=") || strings.HasPrefix(line, "#") {
			continue
		}
		if i == 0 || !strings.HasPrefix(lines[i-1], "#") {
			t.Errorf("default.toml:%d: %q has no comment above it", i+1, line)
		}
	}
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadFile(t *testing.T) {
	path := writeFile(t, "cfg.toml", `
# a partial config: everything else keeps its default
[machine]
cores = 16
[cache.l1]
size_bytes = 65536   # 64 KB
`)
	got, err := configs.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	want := configs.Default()
	want.Machine.Cores = 16
	want.Cache.L1.SizeBytes = 65536
	if got != want {
		t.Errorf("Load = %+v\nwant   %+v", got, want)
	}

	// A file named without .toml or a separator is still found.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "mymachine"), []byte("machine.cores = 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	got, err = configs.Load("mymachine")
	if err != nil {
		t.Fatal(err)
	}
	if got.Machine.Cores != 2 {
		t.Errorf("Load(mymachine).Machine.Cores = %d, want 2", got.Machine.Cores)
	}
}

func TestLoadFileErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.toml")
	_, err := configs.Load(missing)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("Load(missing file) = %v, want a not-exist error naming the file", err)
	}
	_, err = configs.Load("no-such-preset")
	if err == nil || !strings.Contains(err.Error(), `"no-such-preset"`) || !strings.Contains(err.Error(), "default") {
		t.Errorf("Load(unknown preset) = %v, want an error naming it and listing presets", err)
	}
	if _, err := configs.Load(""); err == nil {
		t.Errorf(`Load("") succeeded`)
	}
}

// Decoding errors name the file, the line and the key.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want []string // substrings of the message
		key  string   // *Error.Key
		line int      // *Error.Line
	}{
		{"unknown top-level key", "colour = 3\n",
			[]string{"cfg.toml:1: ", "colour", "unknown key"}, "colour", 1},
		{"unknown table", "\n[bugabo]\nx = 1\n",
			[]string{"cfg.toml:2: ", "bugabo", "unknown table"}, "bugabo", 2},
		{"unknown nested key", "[cache.l1]\nassoc = 4\nsise_bytes = 5\n",
			[]string{"cfg.toml:3: ", "cache.l1.sise_bytes", "unknown key", "did you mean cache.l1.size_bytes?"}, "cache.l1.sise_bytes", 3},
		{"unknown nested table", "[cache.l3]\nsize_bytes = 5\n",
			[]string{"cfg.toml:1: ", "cache.l3", "unknown table", "did you mean cache.l"}, "cache.l3", 1},
		{"key in wrong table", "[sim]\ncores = 4\n",
			[]string{"cfg.toml:2: ", "sim.cores", "did you mean machine.cores?"}, "sim.cores", 2},
		{"keys are case-sensitive", "[sim]\nSeed = 4\n",
			[]string{"cfg.toml:2: ", "sim.Seed", "unknown key", "did you mean sim.seed?"}, "sim.Seed", 2},
		{"dotted unknown key", "machine.cpus = 4\n",
			[]string{"cfg.toml:1: ", "machine.cpus", "unknown key"}, "machine.cpus", 1},
		{"string for integer", "[cache.l1]\n\nsize_bytes = \"64k\"\n",
			[]string{"cfg.toml:3: ", "cache.l1.size_bytes", "wrong type", "integer", `"64k"`}, "cache.l1.size_bytes", 3},
		{"float for integer", "sim.seed = 1.5\n",
			[]string{"cfg.toml:1: ", "sim.seed", "wrong type", "float 1.5"}, "sim.seed", 1},
		{"bool in inline table", "cache.l1 = { assoc = true }\n",
			[]string{"cfg.toml:1: ", "cache.l1.assoc", "wrong type", "boolean"}, "cache.l1.assoc", 1},
		{"array for integer", "[bus]\nwidth_bytes = [32]\n",
			[]string{"cfg.toml:2: ", "bus.width_bytes", "wrong type", "array"}, "bus.width_bytes", 2},
		{"negative unsigned", "[memory]\nlatency_cycles = -5\n",
			[]string{"cfg.toml:2: ", "memory.latency_cycles", "negative", "-5"}, "memory.latency_cycles", 2},
		{"value for table", "cache = 5\n",
			[]string{"cfg.toml:1: ", "cache", "expected a table", "integer 5"}, "cache", 1},
		{"value for nested table", "[cache]\nl1 = 3\n",
			[]string{"cfg.toml:2: ", "cache.l1", "expected a table"}, "cache.l1", 2},
		{"array of tables", "[[sim]]\nseed = 1\n",
			[]string{"cfg.toml:1: ", "sim", "expected a table", "array of tables"}, "sim", 1},
		{"malformed table header", "[sim]\nseed = 1\n[cache.l1\nassoc = 2\n",
			[]string{"cfg.toml:3: ", "invalid TOML"}, "", 3},
		{"missing value", "[sim]\nseed = 1\nmax_cycles =\n",
			[]string{"cfg.toml:3: sim.max_cycles: ", "invalid TOML"}, "sim.max_cycles", 3},
		{"duplicate key", "[sim]\nseed = 1\nseed = 2\n",
			[]string{"cfg.toml:3: ", "invalid TOML", "sim.seed"}, "sim.seed", 3},
		{"bare word", "[machine]\n\n\ncores = eight\n",
			[]string{"cfg.toml:4: machine.cores: ", "invalid TOML"}, "machine.cores", 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := configs.Parse("cfg.toml", []byte(tt.doc))
			if err == nil {
				t.Fatalf("Parse succeeded, want an error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			var ce *configs.Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %v is not a *configs.Error", err)
			}
			if ce.File != "cfg.toml" || ce.Key != tt.key || ce.Line != tt.line {
				t.Errorf("Error{File %q, Key %q, Line %d}, want {cfg.toml, %q, %d}",
					ce.File, ce.Key, ce.Line, tt.key, tt.line)
			}
		})
	}
}

// Every validated key reports its own out-of-range values, by Validate and
// (with the file and the line named) by Load.
func TestValidateErrors(t *testing.T) {
	tests := []struct {
		set  string // an override that breaks one key
		key  string
		want string
	}{
		{"sim.max_cycles=0", "sim.max_cycles", "at least 1"},
		{"sim.max_cycles=1000000000000001", "sim.max_cycles", "must be at most 1000000000000000 (10^15 cycles"},
		{"sim.jitter_cycles=1000000001", "sim.jitter_cycles", "must be at most 1000000000 (10^9 cycles"},
		{"sim.start_skew_cycles=4611686018427387904", "sim.start_skew_cycles", "must be at most 1000000000 (10^9 cycles"},
		{"sim.irritator_prob=1.5", "sim.irritator_prob", "must be from 0 to 1, got 1.5"},
		{"sim.irritator_prob=-0.25", "sim.irritator_prob", "must be from 0 to 1, got -0.25"},
		{"sim.irritator_prob=nan", "sim.irritator_prob", "must be from 0 to 1, got NaN"},
		{"sim.irritator_prob=inf", "sim.irritator_prob", "must be from 0 to 1, got +Inf"},
		{"sim.irritator_prob=3", "sim.irritator_prob", "must be from 0 to 1, got 3"},
		{"sim.irritator_max_cycles=1000000001", "sim.irritator_max_cycles", "must be at most 1000000000 (10^9 cycles"},
		// A probability with nothing to draw the delay from; the file
		// leaves max_cycles at its default (0), so the error has no line.
		{"sim.irritator_prob=0.1", "sim.irritator_max_cycles", "must be at least 1 when sim.irritator_prob is above 0 (it is 0.1): an irritator drawn from 1..0 cycles cannot be honoured"},
		{"sim.seed=-1", "", ""}, // rejected by the decoder, see below
		{"machine.cores=0", "machine.cores", "from 1 to 64, got 0"},
		{"machine.cores=65", "machine.cores", "from 1 to 64, got 65"},
		{"machine.cores=-2", "machine.cores", "from 1 to 64, got -2"},
		{"cpu.alu_cycles=0", "cpu.alu_cycles", "at least 1"},
		{"cpu.alu_cycles=9223372036854775807", "cpu.alu_cycles", "must be at most 1000000000 (10^9 cycles"},
		{"cache.l1.line_bytes=48", "cache.l1.line_bytes", "power of two from 8 to 256, got 48"},
		{"cache.l1.line_bytes=4", "cache.l1.line_bytes", "power of two from 8 to 256, got 4"},
		{"cache.l1.line_bytes=512", "cache.l1.line_bytes", "power of two from 8 to 256, got 512"},
		{"cache.l1.assoc=0", "cache.l1.assoc", "at least 1"},
		{"cache.l1.size_bytes=0", "cache.l1.size_bytes", "positive"},
		{"cache.l1.size_bytes=-4096", "cache.l1.size_bytes", "positive"},
		{"cache.l1.size_bytes=1000", "cache.l1.size_bytes", "multiple of line_bytes × assoc"},
		{"cache.l1.size_bytes=3000000", "cache.l1.size_bytes", "multiple of line_bytes × assoc"},
		{"cache.l1.size_bytes=24576", "cache.l1.size_bytes", "power-of-two number of sets"},
		{"cache.l1.size_bytes=8388608", "cache.l1.size_bytes", "must be at most 4194304 (4 MiB), got 8388608"},
		{"cache.l1.size_bytes=1073741824", "cache.l1.size_bytes", "must be at most 4194304 (4 MiB), got 1073741824"},
		{"cache.l1.assoc=1024", "cache.l1.size_bytes", "multiple of line_bytes × assoc"}, // size_bytes keeps its default
		{"cache.l1.hit_cycles=0", "cache.l1.hit_cycles", "at least 1"},
		{"cache.l1.hit_cycles=1000000001", "cache.l1.hit_cycles", "must be at most 1000000000 (10^9 cycles"},
		{"cache.l2.size_bytes=-1", "cache.l2.size_bytes", "must be 0 (no L2) or positive, got -1"},
		{"cache.l2.size_bytes=16384", "cache.l2.size_bytes", "must be at least cache.l1.size_bytes (32768): a shared L2 smaller than one L1, got 16384"},
		{"cache.l2.size_bytes=536870912", "cache.l2.size_bytes", "must be at most 67108864 (64 MiB), got 536870912"},
		{"cache.l2.size_bytes=100000", "cache.l2.size_bytes", "multiple of line_bytes × assoc (64 × 8), got 100000"},
		{"cache.l2.size_bytes=98304", "cache.l2.size_bytes", "power-of-two number of sets, got 98304 / (64 × 8) = 192 sets"},
		{"cache.l2.assoc=0", "cache.l2.assoc", "at least 1, got 0"},
		{"cache.l2.hit_cycles=0", "cache.l2.hit_cycles", "must be from 1 to 1000000000, got 0"},
		{`bus.kind="pipelined"`, "bus.kind", `must be "atomic" or "split", got "pipelined"`},
		{`bus.data_bus="both"`, "bus.data_bus", `must be "shared" or "separate", got "both"`},
		{"bus.width_bytes=0", "bus.width_bytes", "from 1 to 4096, got 0"},
		{"bus.width_bytes=-8", "bus.width_bytes", "from 1 to 4096, got -8"},
		{"bus.width_bytes=8192", "bus.width_bytes", "from 1 to 4096, got 8192"},
		// Latencies of 2^62 once wrapped busy cycles around (negative
		// busy cycles, shares summing to 200%); every latency is bounded.
		{"bus.arbitration_cycles=4611686018427387904", "bus.arbitration_cycles", "must be at most 1000000000 (10^9 cycles"},
		{"bus.snoop_cycles=4611686018427387904", "bus.snoop_cycles", "must be at most 1000000000 (10^9 cycles"},
		{"bus.c2c_cycles=4611686018427387904", "bus.c2c_cycles", "must be at most 1000000000 (10^9 cycles"},
		{"memory.latency_cycles=4611686018427387904", "memory.latency_cycles", "must be at most 1000000000 (10^9 cycles"},
		{"bugaboo.context.size=9", "bugaboo.context.size", "must be from 0 to 8 events, got 9"},
		{"bugaboo.context.size=-1", "bugaboo.context.size", "must be from 0 to 8 events, got -1"},
		{"bugaboo.context.size=1099511627776", "bugaboo.context.size", "must be from 0 to 8 events"},
		{`bugaboo.context.rmrd_states="S"`, "bugaboo.context.rmrd_states", `must be one of "owner", "any", got "S"`},
		{"bugaboo.metadata.pc_bits=0", "bugaboo.metadata.pc_bits", "must be from 1 to 64, got 0"},
		{"bugaboo.metadata.pc_bits=-1", "bugaboo.metadata.pc_bits", "must be from 1 to 64, got -1"},
		{"bugaboo.metadata.pc_bits=1099511627776", "bugaboo.metadata.pc_bits", "must be from 1 to 64"},
		{`bugaboo.metadata.update_on="always"`, "bugaboo.metadata.update_on", `must be one of "write_or_upgrade_miss", "every_write"`},
		{`bugaboo.metadata.read_fill="copy"`, "bugaboo.metadata.read_fill", `must be one of "copy_supplier", "none"`},
		{`bugaboo.metadata.memory_fill=""`, "bugaboo.metadata.memory_fill", `must be one of "null", "memory", "ideal", got ""`},
		{`bugaboo.ct.organization="shared"`, "bugaboo.ct.organization", `must be one of "per_core", "central"`},
		{"bugaboo.ct.entries=0", "bugaboo.ct.entries", "must be from 1 to 16777216, got 0"},
		{"bugaboo.ct.entries=-1", "bugaboo.ct.entries", "must be from 1 to 16777216, got -1"},
		{"bugaboo.ct.entries=1099511627776", "bugaboo.ct.entries", "must be from 1 to 16777216"},
		{`bugaboo.ct.inval_ack_entries="one"`, "bugaboo.ct.inval_ack_entries", `must be one of "per_sharer", "dedup"`},
		{"bugaboo.ct.trap_cycles=1099511627776", "bugaboo.ct.trap_cycles", "must be at most 1000000000"},
		{"bugaboo.ct.drain_cycles_per_entry=1099511627776", "bugaboo.ct.drain_cycles_per_entry", "must be at most 61035 for 16384 entries"},
		{`pset.granularity="byte"`, "pset.granularity", `must be one of "word", "line"`},
		{"pset.max_readers_tracked=0", "pset.max_readers_tracked", "must be from 1 to 16, got 0"},
		{"pset.max_readers_tracked=-1", "pset.max_readers_tracked", "must be from 1 to 16, got -1"},
		{"pset.max_readers_tracked=1099511627776", "pset.max_readers_tracked", "must be from 1 to 16"},
		{`pset.metadata_on_evict="kept"`, "pset.metadata_on_evict", `must be one of "lost", "writeback", "ideal"`},
		{`pset.untested_policy="allow"`, "pset.untested_policy", `must be one of "null", "ignore"`},
		{"pset.check_base_cycles=1099511627776", "pset.check_base_cycles", "must be at most 1000000000"},
		{"pset.check_per_entry_cycles=1099511627776", "pset.check_per_entry_cycles", "must be at most 1000000000"},
		{`pset.recovery.mode="undo"`, "pset.recovery.mode", `must be one of "log_only", "stall", "rollback", "stall_then_rollback"`},
		{"pset.recovery.checkpoint_interval_instrs=0", "pset.recovery.checkpoint_interval_instrs", "must be from 1 to 1000000000, got 0"},
		{"pset.recovery.checkpoint_interval_instrs=1099511627776", "pset.recovery.checkpoint_interval_instrs", "must be from 1 to 1000000000"},
		{"pset.recovery.max_rollbacks_per_checkpoint=-1", "pset.recovery.max_rollbacks_per_checkpoint", "must be from 0 to 1000, got -1"},
		{"pset.recovery.max_rollbacks_per_checkpoint=1099511627776", "pset.recovery.max_rollbacks_per_checkpoint", "must be from 0 to 1000"},
		{"pset.recovery.stall_timeout_cycles=1099511627776", "pset.recovery.stall_timeout_cycles", "must be at most 1000000000"},
		{`pset.recovery.perturbation="shuffle"`, "pset.recovery.perturbation", `must be one of "jitter", "delay_violator", "delay_predecessor"`},
		{"pset.recovery.perturb_delay_cycles=0", "pset.recovery.perturb_delay_cycles", `must be at least 1 with perturbation "delay_predecessor"`},
		{"pset.recovery.perturb_delay_cycles=1099511627776", "pset.recovery.perturb_delay_cycles", "must be at most 1000000000"},
		{"falcon.window=2", "falcon.window", "must be from 3 (the longest pattern) to 1024, got 2"},
		{"falcon.window=5000", "falcon.window", "must be from 3 (the longest pattern) to 1024, got 5000"},
		{`falcon.granularity="byte"`, "falcon.granularity", `must be one of "word", "line"`},
		{`falcon.score="ochiai"`, "falcon.score", `must be one of "jaccard", "tarantula"`},
		{`falcon.scope="lib"`, "falcon.scope", `must be one of "app", "all"`},
		{"conseq.max_distance=0", "conseq.max_distance", "must be from 1 to 64, got 0"},
		{"conseq.max_distance=-1", "conseq.max_distance", "must be from 1 to 64, got -1"},
		{"conseq.max_distance=1099511627776", "conseq.max_distance", "must be from 1 to 64"},
		{`conseq.model="bytes"`, "conseq.model", `must be one of "statement", "instruction"`},
		{`conseq.sites="OUT,MEM"`, "conseq.sites", `must be one of "OUT", "ASS", "ERR", "LOOP", "INV", got "MEM"`},
		{`conseq.sites="OUT,OUT"`, "conseq.sites", `must list each kind once, got "OUT" twice`},
		{`conseq.error_routines="a,,b"`, "conseq.error_routines", `must name no empty routine, got "a,,b"`},
		{"conseq.invariant_runs=-1", "conseq.invariant_runs", "must be from 0 to 10000, got -1"},
		{"conseq.invariant_runs=1099511627776", "conseq.invariant_runs", "must be from 0 to 10000"},
		{"conseq.test_timeout_cycles=0", "conseq.test_timeout_cycles", "must be at least 1, got 0"},
	}
	for _, tt := range tests {
		if tt.key == "" {
			continue
		}
		t.Run(tt.set, func(t *testing.T) {
			c := configs.Default()
			if err := c.Set(tt.set); err != nil {
				t.Fatalf("Set: %v", err)
			}
			err := c.Validate()
			if err == nil || !strings.Contains(err.Error(), tt.key+": ") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Validate() = %v, want an error naming %s and saying %q", err, tt.key, tt.want)
			}
			var ce *configs.Error
			if !errors.As(err, &ce) || ce.Key != tt.key || ce.Line != 0 {
				t.Errorf("Validate() = %#v, want a *configs.Error with Key %s and no line", err, tt.key)
			}

			// In a file, the error names the line that sets the key (4
			// here); a key the file leaves at its default has no line.
			key, value, _ := strings.Cut(tt.set, "=")
			i := strings.LastIndexByte(key, '.')
			path := writeFile(t, "bad.toml", "# out of range\n["+key[:i]+"]\n\n"+key[i+1:]+" = "+value+"\n")
			loc, line := path+":4: "+tt.key+": ", 4
			if key != tt.key {
				loc, line = path+": "+tt.key+": ", 0
			}
			_, err = configs.Load(path)
			if err == nil || !strings.Contains(err.Error(), loc+"must") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Load = %v, want an error starting %q and saying %q", err, loc, tt.want)
			}
			if !errors.As(err, &ce) || ce.File != path || ce.Line != line || ce.Key != tt.key {
				t.Errorf("Load = %#v, want a *configs.Error with File %s, Line %d, Key %s", err, path, line, tt.key)
			}
		})
	}

	// The table covers every key that Validate checks: any key that some
	// value breaks has a case above.
	covered := map[string]bool{}
	for _, tt := range tests {
		covered[tt.key] = true
	}
	for _, key := range configs.Keys() {
		for _, v := range []string{"0", "-1", "3", "1099511627776"} {
			c := configs.Default()
			if c.Set(key+"="+v) != nil {
				continue // the decoder rejects it: not a range check
			}
			var ce *configs.Error
			if err := c.Validate(); errors.As(err, &ce) && ce.Key == key && !covered[key] {
				t.Errorf("%s=%s fails validation (%v) but no case above covers %s", key, v, err, key)
			}
		}
	}

	// Every problem is reported, not only the first.
	c := configs.Default()
	c.Machine.Cores = 0
	c.Bus.WidthBytes = 0
	err := c.Validate()
	if err == nil || !strings.Contains(err.Error(), "machine.cores") || !strings.Contains(err.Error(), "bus.width_bytes") {
		t.Errorf("Validate() = %v, want both machine.cores and bus.width_bytes", err)
	}

	// Values the decoder cannot produce but a caller can.
	c = configs.Default()
	c.Sim.Seed = 1 << 63
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "sim.seed") {
		t.Errorf("Validate(seed 2^63) = %v, want an error naming sim.seed", err)
	}

	// Geometries that are fine.
	for _, set := range [][]string{
		{"cache.l1.size_bytes=64", "cache.l1.line_bytes=64", "cache.l1.assoc=1"},
		{"cache.l1.size_bytes=1024", "cache.l1.line_bytes=8", "cache.l1.assoc=128"},
		{"cache.l1.size_bytes=98304", "cache.l1.assoc=12"}, // 12 ways × 128 sets
		{"machine.cores=1", "machine.cores=64"},
		{"bus.width_bytes=24", "memory.latency_cycles=0", "sim.jitter_cycles=0"},
		// A largest irritator with irritators off is fine: they stay off.
		{"sim.irritator_max_cycles=1000"},
		{"sim.irritator_prob=1", "sim.irritator_max_cycles=1000000000"},
		{"sim.irritator_prob=0.05", "sim.irritator_max_cycles=1"},
	} {
		c := configs.Default()
		for _, s := range set {
			if err := c.Set(s); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.Validate(); err != nil {
			t.Errorf("%v: Validate() = %v, want nil", set, err)
		}
	}
}

// A range error in a file names the line that sets the key, however the
// file writes it.
func TestValidateErrorLines(t *testing.T) {
	tests := []struct {
		name, doc string
		want      []string // the errors, in key order
	}{
		{"table", "[sim]\nseed = 3\n\n[machine]\ncores = 100\n",
			[]string{"cfg.toml:5: machine.cores: must be from 1 to 64, got 100"}},
		{"dotted keys", "sim.max_cycles = 0\n[cache]\nl1.line_bytes = 3\n",
			[]string{"cfg.toml:1: sim.max_cycles: must be at least 1, got 0",
				"cfg.toml:3: cache.l1.line_bytes: must be a power of two from 8 to 256, got 3"}},
		{"inline table", "cache = { l1 = { assoc = 2,\n  hit_cycles = 0 } }\n",
			[]string{"cfg.toml:2: cache.l1.hit_cycles: must be at least 1, got 0"}},
		{"default value", "[cache.l1]\nassoc = 3\n",
			[]string{"cfg.toml: cache.l1.size_bytes: must be a multiple of line_bytes × assoc (64 × 3), got 32768"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, "cfg.toml", tt.doc)
			_, err := configs.Load(path)
			if err == nil {
				t.Fatal("Load succeeded, want an error")
			}
			var want []string
			for _, w := range tt.want {
				want = append(want, strings.ReplaceAll(w, "cfg.toml", path))
			}
			if got := err.Error(); got != strings.Join(want, "\n") {
				t.Errorf("Load error\n%s\nwant\n%s", got, strings.Join(want, "\n"))
			}
		})
	}
}

func TestSet(t *testing.T) {
	tests := []struct {
		assignment string
		key, want  string
	}{
		{"cache.l1.size_bytes=65536", "cache.l1.size_bytes", "65536"},
		{"sim.seed=7", "sim.seed", "7"},
		{"memory.latency_cycles=200", "memory.latency_cycles", "200"},
		{" machine.cores = 16 ", "machine.cores", "16"},
		{"sim.max_cycles=1_000_000", "sim.max_cycles", "1000000"},
		{"bus.width_bytes=0x40", "bus.width_bytes", "64"},
		{"sim.seed=9 # comment", "sim.seed", "9"},
	}
	for _, tt := range tests {
		t.Run(tt.assignment, func(t *testing.T) {
			c := configs.Default()
			if err := c.Set(tt.assignment); err != nil {
				t.Fatalf("Set: %v", err)
			}
			if got, _ := configs.Get(c, tt.key); got != tt.want {
				t.Errorf("%s = %s, want %s", tt.key, got, tt.want)
			}
			want := configs.Default()
			if err := want.Set(tt.key + "=" + tt.want); err != nil {
				t.Fatal(err)
			}
			if c != want {
				t.Errorf("Set changed other keys: %+v", c)
			}
		})
	}
}

func TestSetErrors(t *testing.T) {
	tests := []struct {
		assignment string
		want       []string
	}{
		{"sim.seed", []string{`"sim.seed"`, "key=value"}},
		{"=7", []string{"missing key"}},
		{"sim.seed=", []string{"sim.seed: ", "missing value"}},
		{"sim.sed=7", []string{"sim.sed: ", "unknown key", "did you mean sim.seed?"}},
		{"nosuch=1", []string{"nosuch: ", "unknown key"}},
		{"cache.l1.sise_bytes=1", []string{"cache.l1.sise_bytes: ", "unknown key"}},
		{"cache.l1=5", []string{"cache.l1: ", "is a table", "cache.l1.size_bytes"}},
		{"sim.seed=abc", []string{"sim.seed: ", "invalid value abc"}},
		{"sim.seed=7 8", []string{"sim.seed: ", "invalid value"}},
		{`sim.seed="7"`, []string{"sim.seed: ", "wrong type", `"7"`}},
		{"sim.seed=1.5", []string{"sim.seed: ", "wrong type"}},
		{"sim.seed=-1", []string{"sim.seed: ", "negative"}},
		{"machine.cores=true", []string{"machine.cores: ", "wrong type"}},
		{"machine.cores={x=1}", []string{"machine.cores: ", "wrong type", "table"}},
		{"sim.seed=7\nmachine.cores=2", []string{"sim.seed: ", "not a single TOML value"}},
		{"sim.seed=7\n[machine]\ncores=2", []string{"sim.seed: ", "not a single TOML value"}},
	}
	for _, tt := range tests {
		t.Run(tt.assignment, func(t *testing.T) {
			c := configs.Default()
			c.Sim.Seed = 42 // not the default, to see it survive
			before := c
			err := c.Set(tt.assignment)
			if err == nil {
				t.Fatalf("Set succeeded, want an error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if c != before {
				t.Errorf("config changed by a failed Set: %+v", c)
			}
		})
	}
}

func TestTOMLRoundTrip(t *testing.T) {
	tweaked := configs.Default()
	for _, s := range []string{"sim.seed=123456789012", "machine.cores=3", "cache.l1.assoc=4",
		"bus.c2c_cycles=0", "sim.max_cycles=1000000000000000", "sim.irritator_prob=0.1", "sim.irritator_max_cycles=100"} {
		if err := tweaked.Set(s); err != nil {
			t.Fatal(err)
		}
	}
	for name, c := range map[string]configs.Config{"default": configs.Default(), "tweaked": tweaked} {
		t.Run(name, func(t *testing.T) {
			text := c.TOML()
			got, err := configs.Parse("out.toml", []byte(text))
			if err != nil {
				t.Fatalf("Parse(TOML()): %v\n%s", err, text)
			}
			if got != c {
				t.Errorf("round trip = %+v\nwant        %+v", got, c)
			}
			loaded, err := configs.Load(writeFile(t, "out.toml", text))
			if err != nil || loaded != c {
				t.Errorf("Load(TOML()) = %+v, %v", loaded, err)
			}
			for _, key := range configs.Keys() {
				if !strings.Contains(text, key[strings.LastIndexByte(key, '.')+1:]+" = ") {
					t.Errorf("TOML() lacks %s", key)
				}
			}
			if c.TOML() != text {
				t.Errorf("TOML() not stable")
			}
		})
	}
}

func TestHash(t *testing.T) {
	base := configs.Default()
	h := base.Hash()
	if len(h) != 16 || strings.Trim(h, "0123456789abcdef") != "" {
		t.Errorf("Hash() = %q, want 16 hex digits", h)
	}
	if again := configs.Default().Hash(); again != h {
		t.Errorf("Hash not stable: %s then %s", h, again)
	}
	p, _ := configs.Preset("default")
	if p.Hash() != h {
		t.Errorf("preset default hash %s != Default() hash %s", p.Hash(), h)
	}
	// sim.seed is not part of the machine: every run records its own.
	for _, seed := range []string{"0", "2", "9223372036854775807"} {
		c := base
		if err := c.Set("sim.seed=" + seed); err != nil {
			t.Fatal(err)
		}
		if c.Hash() != h {
			t.Errorf("sim.seed=%s changes the hash: %s, want %s", seed, c.Hash(), h)
		}
	}
	seen := map[string]string{h: "default"}
	for _, key := range configs.Keys() {
		if key == "sim.seed" {
			continue
		}
		v, _ := configs.Get(base, key)
		c := base
		if v == "" { // an empty list (conseq's routines)
			if err := c.Set(key + `="x"`); err != nil {
				t.Fatal(err)
			}
			hc := c.Hash()
			if prev, dup := seen[hc]; dup {
				t.Errorf("changing %s gives the hash of %s", key, prev)
			}
			seen[hc] = key
			continue
		}
		switch v {
		case "0":
			v = ""
		case "true", "false":
			v = map[string]string{"true": "false", "false": "true"}[v]
		}
		set := key + "=" + v + "1" // append a digit: always a different value
		if v == "true" || v == "false" {
			set = key + "=" + v
		} else if _, err := strconv.ParseFloat(v+"1", 64); err != nil {
			set = key + `="` + v + `1"` // a string value
		}
		if err := c.Set(set); err != nil {
			t.Fatal(err)
		}
		hc := c.Hash()
		if prev, dup := seen[hc]; dup {
			t.Errorf("changing %s gives the hash of %s", key, prev)
		}
		seen[hc] = key
	}
}

func TestGet(t *testing.T) {
	c := configs.Default()
	for _, key := range configs.Keys() {
		if v, err := configs.Get(c, key); err != nil || v == "" && !strings.HasSuffix(key, "_routines") {
			t.Errorf("Get(%s) = %q, %v", key, v, err)
		}
	}
	for _, key := range []string{"sim", "cache.l1", "sim.sed", "", "sim.seed.x"} {
		if _, err := configs.Get(c, key); err == nil {
			t.Errorf("Get(%q) succeeded", key)
		}
	}
}

// An integer beyond TOML's range (a seed of 2^64−1) names its key and the
// limit, in a file and a --set (and in a sweep file: the sweep package's
// TestHugeIntegerNamesKey).
func TestHugeIntegerNamesKey(t *testing.T) {
	const limit = "must be from -9223372036854775808 to 9223372036854775807"
	path := writeFile(t, "big.toml", "# seeds\n[sim]\nseed = 18446744073709551615\n")
	_, err := configs.Load(path)
	var ce *configs.Error
	if err == nil || !strings.Contains(err.Error(), path+":3: sim.seed: 18446744073709551615 is out of range") ||
		!strings.Contains(err.Error(), limit) || !errors.As(err, &ce) || ce.Key != "sim.seed" || ce.Line != 3 {
		t.Errorf("Load = %v", err)
	}
	c := configs.Default()
	if err := c.Set("sim.seed=18446744073709551615"); err == nil || !strings.Contains(err.Error(), "sim.seed: ") || !strings.Contains(err.Error(), limit) {
		t.Errorf("Set = %v", err)
	}
}

func TestConSeqInvariantRunsNeedINV(t *testing.T) {
	c := configs.Default()
	if err := c.Set(`conseq.sites="OUT,ASS"`); err != nil {
		t.Fatal(err)
	}
	if err := c.Set("conseq.invariant_runs=3"); err != nil {
		t.Fatal(err)
	}
	err := c.Validate()
	var ce *configs.Error
	if !errors.As(err, &ce) || ce.Key != "conseq.invariant_runs" || !strings.Contains(err.Error(), "must be 0 when conseq.sites leaves INV out, got 3") {
		t.Errorf("Validate() = %v, want conseq.invariant_runs named", err)
	}
}

// A bare word given to a string key says to quote it.
func TestSetSuggestsQuotes(t *testing.T) {
	c := configs.Default()
	err := c.Set("pset.recovery.mode=log_only")
	if err == nil || !strings.Contains(err.Error(), `quote it, as in --set 'pset.recovery.mode="log_only"'`) {
		t.Errorf("unquoted string: %v", err)
	}
	if err := c.Set(`pset.recovery.mode="log_only"`); err != nil {
		t.Errorf("quoted string: %v", err)
	}
	if err := c.Set("machine.cores=x8"); err == nil || strings.Contains(err.Error(), "quote it") {
		t.Errorf("a bad number must not be told to quote: %v", err)
	}
}

// TestValidateL2AgainstL1 checks the L2's constraints that involve the L1:
// with an L2, its line size must equal the L1's; without one, its line
// size is not checked (changing the L1's line alone stays valid).
func TestValidateL2AgainstL1(t *testing.T) {
	c := configs.Default()
	for _, s := range []string{"cache.l2.size_bytes=1048576", "cache.l2.line_bytes=128"} {
		if err := c.Set(s); err != nil {
			t.Fatal(err)
		}
	}
	err := c.Validate()
	var ce *configs.Error
	if !errors.As(err, &ce) || ce.Key != "cache.l2.line_bytes" || !strings.Contains(err.Error(), "must equal cache.l1.line_bytes (64)") {
		t.Errorf("L2 line 128 beside L1 line 64: Validate() = %v, want an error on cache.l2.line_bytes", err)
	}
	c = configs.Default()
	if err := c.Set("cache.l1.line_bytes=32"); err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Errorf("L1 line 32 with no L2: Validate() = %v, want nil", err)
	}
	c = configs.Default()
	for _, s := range []string{"cache.l2.size_bytes=1048576", `bus.kind="split"`, `bus.data_bus="shared"`} {
		if err := c.Set(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Validate(); err != nil {
		t.Errorf("a 1 MiB L2 on a split bus: Validate() = %v, want nil", err)
	}
}
