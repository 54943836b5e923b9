package configs

import "fmt"

// Bugaboo is the `[bugaboo]` table: Bugaboo's hardware (BB-HW, Lucia and
// Ceze, MICRO 2009): per-core context registers, writer metadata on cache
// lines, and the communication table with its trap to software. Off by
// default; each open choice of the paper is a key whose default is the
// paper's reading (papers' digest §5.2, §5.5).
type Bugaboo struct {
	// Enabled turns BB-HW on.
	Enabled bool `toml:"enabled"`
	// Context is the `[bugaboo.context]` table: the context shift register.
	Context BugabooContext `toml:"context"`
	// Metadata is the `[bugaboo.metadata]` table: the per-line writer record.
	Metadata BugabooMetadata `toml:"metadata"`
	// CT is the `[bugaboo.ct]` table: the communication table.
	CT BugabooCT `toml:"ct"`
}

// BugabooContext is the `[bugaboo.context]` table.
type BugabooContext struct {
	// Size is the number of communication events the register holds (S),
	// 0 to 8; 0 gives the context-oblivious graph. The paper uses 5.
	Size int `toml:"size"`
	// DistinctEmpty gives an empty slot its own code (3-bit codes, EMPTY=0)
	// instead of the paper's 2-bit codes, where an empty slot reads as LcRd.
	DistinctEmpty bool `toml:"distinct_empty"`
	// LcRdOnMemoryMiss shifts LcRd on a read miss served by memory too; the
	// paper counts only cache-to-cache communication (false).
	LcRdOnMemoryMiss bool `toml:"lcrd_on_memory_miss"`
	// RmRdStates says which snooped read hits shift RmRd: "owner" (the line
	// was in M or E, so this cache supplies it; the paper's reading) or
	// "any" (S holders too).
	RmRdStates string `toml:"rmrd_states"`
	// SaveOnSwitch saves a core's register with the thread leaving it and
	// restores the arriving thread's (empty for a new one) when a thread
	// starts on a core; false lets the new thread inherit the core's
	// history (the paper's per-processor register).
	SaveOnSwitch bool `toml:"save_on_switch"`
}

// BugabooMetadata is the `[bugaboo.metadata]` table.
type BugabooMetadata struct {
	// PCBits is the width of the writer-PC field, 1 to 64 (the paper: 64,
	// or hashed to fewer bits); a PC is kept modulo 2^PCBits.
	PCBits int `toml:"pc_bits"`
	// UpdateOn says when a line's record is set to the writer's PC and
	// context: "write_or_upgrade_miss" (the paper's text) or "every_write".
	UpdateOn string `toml:"update_on"`
	// ReadFill says what a read fill does to the requester's record:
	// "copy_supplier" (the record rides the read reply; the paper) or
	// "none" (left empty).
	ReadFill string `toml:"read_fill"`
	// MemoryFill says what a memory-served fill gets: "null" (records are
	// lost on eviction; the paper), "memory" (written back and restored with
	// the line, paying bus bytes) or "ideal" (never lost, free).
	MemoryFill string `toml:"memory_fill"`
}

// BugabooCT is the `[bugaboo.ct]` table.
type BugabooCT struct {
	// Organization is "per_core" (one table per core; the paper's
	// evaluation) or "central" (one shared table).
	Organization string `toml:"organization"`
	// Entries is each table's capacity in edges, 1 to 2^24 (the paper:
	// 16384).
	Entries int `toml:"entries"`
	// RecordMemoryMisses inserts a NULL-source entry for every read miss
	// served by memory (the paper: true).
	RecordMemoryMisses bool `toml:"record_memory_misses"`
	// InvalAckEntries is "per_sharer" (one WAW entry per invalidated
	// sharer; the paper's reading) or "dedup" (one per transaction).
	InvalAckEntries string `toml:"inval_ack_entries"`
	// DropDuringTrap drops the inserts that arrive while a trap drains the
	// table (the paper); false makes the inserting core wait for the trap
	// to end instead.
	DropDuringTrap bool `toml:"drop_during_trap"`
	// TrapCycles is the fixed cost of a trap to the software handler, at
	// most MaxLatencyCycles (the paper gives no number).
	TrapCycles uint64 `toml:"trap_cycles"`
	// DrainCyclesPerEntry is the handler's cost per drained entry, at most
	// MaxLatencyCycles / Entries.
	DrainCyclesPerEntry uint64 `toml:"drain_cycles_per_entry"`
	// SpareCoreDrain drains on a spare core: the trapping core is not
	// charged (inserts during the drain are still dropped or wait).
	SpareCoreDrain bool `toml:"spare_core_drain"`
}

// MaxCTEntries is the largest bugaboo.ct.entries.
const MaxCTEntries = 1 << 24

// defaultBugaboo is the paper's reading of every choice, off.
func defaultBugaboo() Bugaboo {
	return Bugaboo{
		Context:  BugabooContext{Size: 5, RmRdStates: "owner"},
		Metadata: BugabooMetadata{PCBits: 64, UpdateOn: "write_or_upgrade_miss", ReadFill: "copy_supplier", MemoryFill: "null"},
		CT: BugabooCT{Organization: "per_core", Entries: 16384, RecordMemoryMisses: true, InvalAckEntries: "per_sharer",
			DropDuringTrap: true, TrapCycles: 5000, DrainCyclesPerEntry: 10},
	}
}

// bugabooProblems checks the [bugaboo] keys.
func (c *Config) bugabooProblems(bad func(key, format string, args ...any)) {
	b := c.Bugaboo
	oneOf := func(key, v string, allowed ...string) { checkOneOf(bad, key, v, allowed) }
	if b.Context.Size < 0 || b.Context.Size > 8 {
		bad("bugaboo.context.size", "must be from 0 to 8 events, got %d", b.Context.Size)
	}
	oneOf("bugaboo.context.rmrd_states", b.Context.RmRdStates, "owner", "any")
	if b.Metadata.PCBits < 1 || b.Metadata.PCBits > 64 {
		bad("bugaboo.metadata.pc_bits", "must be from 1 to 64, got %d", b.Metadata.PCBits)
	}
	oneOf("bugaboo.metadata.update_on", b.Metadata.UpdateOn, "write_or_upgrade_miss", "every_write")
	oneOf("bugaboo.metadata.read_fill", b.Metadata.ReadFill, "copy_supplier", "none")
	oneOf("bugaboo.metadata.memory_fill", b.Metadata.MemoryFill, "null", "memory", "ideal")
	oneOf("bugaboo.ct.organization", b.CT.Organization, "per_core", "central")
	if b.CT.Entries < 1 || b.CT.Entries > MaxCTEntries {
		bad("bugaboo.ct.entries", "must be from 1 to %d, got %d", MaxCTEntries, b.CT.Entries)
	}
	oneOf("bugaboo.ct.inval_ack_entries", b.CT.InvalAckEntries, "per_sharer", "dedup")
	if b.CT.TrapCycles > MaxLatencyCycles {
		bad("bugaboo.ct.trap_cycles", "must be at most %d, got %d", MaxLatencyCycles, b.CT.TrapCycles)
	}
	if b.CT.Entries >= 1 && b.CT.DrainCyclesPerEntry > MaxLatencyCycles/uint64(b.CT.Entries) {
		bad("bugaboo.ct.drain_cycles_per_entry", "must be at most %d for %d entries (a drain stays under %d cycles), got %d",
			MaxLatencyCycles/uint64(b.CT.Entries), b.CT.Entries, MaxLatencyCycles, b.CT.DrainCyclesPerEntry)
	}
}

// checkOneOf reports key through bad unless v is one of allowed.
func checkOneOf(bad func(key, format string, args ...any), key, v string, allowed []string) {
	for _, a := range allowed {
		if v == a {
			return
		}
	}
	bad(key, "must be one of %s, got %q", quoteList(allowed), v)
}

func quoteList(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ", "
		}
		out += fmt.Sprintf("%q", x)
	}
	return out
}
