package configs

// PSet is the `[pset]` table: PSet's hardware (Yu and Narayanasamy, ISCA
// 2009): last-writer and last-reader metadata in the caches, carried on
// coherence replies, and a check of every access whose immediate
// predecessor is remote against its instruction's PSet. Off by default;
// the PSets themselves come with the program (weft run --psets FILE).
type PSet struct {
	// Enabled turns the PSet hardware on.
	Enabled bool `toml:"enabled"`
	// Granularity is the metadata's granule: "word" (8 bytes; the paper's
	// introduction) or "line".
	Granularity string `toml:"granularity"`
	// MaxReadersTracked is the number of last-reader slots per granule, 1
	// to 16; a further reader drops the oldest.
	MaxReadersTracked int `toml:"max_readers_tracked"`
	// MetadataOnEvict says what an evicted line's metadata becomes: "lost"
	// (the paper), "writeback" (written back and restored with the line,
	// paying bus bytes) or "ideal" (kept, free).
	MetadataOnEvict string `toml:"metadata_on_evict"`
	// UntestedPolicy says how an instruction training never ran is
	// checked: "null" (any remote predecessor violates; the paper's
	// default) or "ignore" (never checked).
	UntestedPolicy string `toml:"untested_policy"`
	// IncludeSyncOps checks and tracks accesses to synchronisation words
	// (lock words, barriers, condition variables), as the paper's tool did.
	IncludeSyncOps bool `toml:"include_sync_ops"`
	// CheckBaseCycles is a check's fixed cost (the DISE-injected
	// micro-ops), charged only when some immediate predecessor is remote.
	CheckBaseCycles uint64 `toml:"check_base_cycles"`
	// CheckPerEntryCycles is a check's cost per PSet entry scanned.
	CheckPerEntryCycles uint64 `toml:"check_per_entry_cycles"`
	// Recovery is the `[pset.recovery]` table: what a violation does.
	Recovery PSetRecovery `toml:"recovery"`
}

// PSetRecovery is the `[pset.recovery]` table.
type PSetRecovery struct {
	// Mode is "log_only" (the access proceeds, the violation is logged),
	// "stall" (the access waits until another thread accesses its line,
	// then is checked again; a timeout releases it, logged), "rollback"
	// (the run returns to its last checkpoint and re-executes with a
	// perturbed schedule) or "stall_then_rollback" (a stall that times out
	// rolls back).
	Mode string `toml:"mode"`
	// StallTimeoutCycles bounds a stall (0: none; the paper gives no
	// value).
	StallTimeoutCycles uint64 `toml:"stall_timeout_cycles"`
	// CheckpointIntervalInstrs is how many instructions apart the global
	// checkpoints of the rollback modes are (an output also ends one: it
	// cannot be undone).
	CheckpointIntervalInstrs uint64 `toml:"checkpoint_interval_instrs"`
	// MaxRollbacksPerCheckpoint bounds the rollbacks to one checkpoint;
	// past it the violation is accepted, logged and added to the PSet, and
	// a new checkpoint is taken there.
	MaxRollbacksPerCheckpoint int `toml:"max_rollbacks_per_checkpoint"`
	// Perturbation is how a re-execution after a rollback differs (the
	// paper leaves it open): "jitter" reseeds every thread's timing
	// jitter; "delay_violator" also holds the violating thread at the
	// violating access for PerturbDelayCycles; "delay_predecessor" also
	// holds the violation's predecessor thread at the predecessor's
	// access until another thread touches that line, or
	// PerturbDelayCycles.
	Perturbation string `toml:"perturbation"`
	// PerturbDelayCycles is the hold of the delay perturbations.
	PerturbDelayCycles uint64 `toml:"perturb_delay_cycles"`
}

// MaxPSetReaders is the largest pset.max_readers_tracked.
const MaxPSetReaders = 16

// MaxPSetRollbacks is the largest pset.recovery.max_rollbacks_per_checkpoint.
const MaxPSetRollbacks = 1000

// defaultPSet is the paper's reading of every choice, off.
func defaultPSet() PSet {
	return PSet{Granularity: "word", MaxReadersTracked: 4, MetadataOnEvict: "lost", UntestedPolicy: "null", IncludeSyncOps: true,
		CheckBaseCycles: 2, CheckPerEntryCycles: 1, Recovery: PSetRecovery{Mode: "stall", StallTimeoutCycles: 100_000,
			CheckpointIntervalInstrs: 100_000, MaxRollbacksPerCheckpoint: 3, Perturbation: "delay_predecessor", PerturbDelayCycles: 5_000}}
}

// psetProblems checks the [pset] keys.
func (c *Config) psetProblems(bad func(key, format string, args ...any)) {
	p := c.PSet
	oneOf := func(key, v string, allowed ...string) { checkOneOf(bad, key, v, allowed) }
	oneOf("pset.granularity", p.Granularity, "word", "line")
	if p.MaxReadersTracked < 1 || p.MaxReadersTracked > MaxPSetReaders {
		bad("pset.max_readers_tracked", "must be from 1 to %d, got %d", MaxPSetReaders, p.MaxReadersTracked)
	}
	oneOf("pset.metadata_on_evict", p.MetadataOnEvict, "lost", "writeback", "ideal")
	oneOf("pset.untested_policy", p.UntestedPolicy, "null", "ignore")
	for _, k := range []struct {
		key string
		v   uint64
	}{{"pset.check_base_cycles", p.CheckBaseCycles}, {"pset.check_per_entry_cycles", p.CheckPerEntryCycles}, {"pset.recovery.stall_timeout_cycles", p.Recovery.StallTimeoutCycles},
		{"pset.recovery.perturb_delay_cycles", p.Recovery.PerturbDelayCycles}} {
		if k.v > MaxLatencyCycles {
			bad(k.key, "must be at most %d, got %d", MaxLatencyCycles, k.v)
		}
	}
	oneOf("pset.recovery.mode", p.Recovery.Mode, "log_only", "stall", "rollback", "stall_then_rollback")
	oneOf("pset.recovery.perturbation", p.Recovery.Perturbation, "jitter", "delay_violator", "delay_predecessor")
	if p.Recovery.Perturbation != "jitter" && p.Recovery.PerturbDelayCycles == 0 {
		bad("pset.recovery.perturb_delay_cycles", "must be at least 1 with perturbation %q", p.Recovery.Perturbation)
	}
	if p.Recovery.CheckpointIntervalInstrs < 1 || p.Recovery.CheckpointIntervalInstrs > MaxLatencyCycles {
		bad("pset.recovery.checkpoint_interval_instrs", "must be from 1 to %d, got %d", MaxLatencyCycles, p.Recovery.CheckpointIntervalInstrs)
	}
	if p.Recovery.MaxRollbacksPerCheckpoint < 0 || p.Recovery.MaxRollbacksPerCheckpoint > MaxPSetRollbacks {
		bad("pset.recovery.max_rollbacks_per_checkpoint", "must be from 0 to %d, got %d", MaxPSetRollbacks, p.Recovery.MaxRollbacksPerCheckpoint)
	}
	// One eviction policy serves every extension's metadata.
	if p.Enabled && c.Bugaboo.Enabled {
		same := map[string]string{"lost": "null", "writeback": "memory", "ideal": "ideal"}
		if want, ok := same[p.MetadataOnEvict]; ok && want != c.Bugaboo.Metadata.MemoryFill {
			bad("pset.metadata_on_evict", "is %q but bugaboo.metadata.memory_fill is %q: with both on they must agree (lost = null, writeback = memory, ideal = ideal)",
				p.MetadataOnEvict, c.Bugaboo.Metadata.MemoryFill)
		}
	}
}
