package workloads

import "weft/isa"

// Synthetic is a named synthetic profile: a generator and its parameters.
type Synthetic struct {
	// Name is the profile's registry name.
	Name string
	// Program generates the workload for a machine of cores cores (0: the
	// profile's default thread count).
	Program func(cores int) (*isa.Program, error)
}

// DefaultProfileThreads is the thread count of a profile built for cores 0
// (the default machine's cores).
const DefaultProfileThreads = 8

// profileOps is the memory operations of a profile's region of interest,
// split among its threads: a fixed input, as in PARSEC and SPLASH-2, so a
// run costs about the same whatever the core count.
const profileOps = 200_000

// profile is one named profile of the phased generator.
type profile struct {
	name string
	// suite and resembles say what the profile imitates.
	suite, resembles string
	// threads fixes the thread count; 0 follows machine.cores.
	threads int
	gen     Gen
}

// program builds p for a machine of cores cores.
func (p profile) program(cores int) (*isa.Program, error) {
	g := p.gen
	g.Name = p.name
	g.Desc = p.suite + " " + p.name + "-like synthetic profile: " + p.resembles
	g.Threads = p.threads
	if g.Threads == 0 {
		g.Threads = cores
	}
	if g.Threads == 0 {
		g.Threads = DefaultProfileThreads
	}
	g.OpsPerThread = profileOps / g.Threads
	return g.Program()
}

// profileTable lists the profiles of the phased generator. The nine PARSEC
// profiles are calibrated against Bugaboo Table 5 on the bugaboo-micro09
// preset (workloads/README.md, TestCalibration); the SPLASH-2 ones imitate
// their programs' sharing patterns and are not calibrated.
func profileTable() []profile {
	return []profile{
		// PARSEC (Bugaboo Table 5).
		{name: "blackscholes", suite: "PARSEC", resembles: "streams option records in, prices out, heavy arithmetic, no sharing",
			gen: Gen{Phases: 1, Slots: 16, HotWords: 1024, HotWriteFrac: 0.2,
				StreamReadFrac: 0.170, StreamWriteFrac: 0.0431, StreamStride: 8, ALUPerLoad: 1, Work: 20, Seed: 1}},
		{name: "canneal", suite: "PARSEC", resembles: "random reads over a large shared netlist, rare element swaps",
			gen: Gen{Phases: 1, Slots: 16, HotWords: 512, HotWriteFrac: 0.2,
				SharedWords: 65536, SharedReadFrac: 0.0445, SharedWriteFrac: 0.0016, ALUPerLoad: 1, Seed: 1}},
		{name: "dedup", suite: "PARSEC", resembles: "pipeline stages hashing chunks that stay in the cache, rare queue locks",
			gen: Gen{Phases: 1, Slots: 16, HotWords: 2048, HotWriteFrac: 0.3,
				StreamReadFrac: 0.003, StreamWriteFrac: 0.0001, StreamStride: 8,
				LockEvery: 600, Locks: 4, CSLen: 2, ALUPerLoad: 1, Seed: 1}},
		{name: "ferret", suite: "PARSEC", resembles: "similarity search: random reads of a shared database, ranked results streamed out",
			gen: Gen{Phases: 1, Slots: 16, HotWords: 1024, HotWriteFrac: 0.2,
				SharedWords: 32768, SharedReadFrac: 0.0033, StreamWriteFrac: 0.019, StreamStride: 8,
				LockEvery: 400, Locks: 4, CSLen: 2, ALUPerLoad: 1, Seed: 1}},
		{name: "fluidanimate", suite: "PARSEC", resembles: "grid of particles: barrier phases, neighbour reads, per-cell locks",
			gen: Gen{Phases: 2, Slots: 16, HotWords: 1024, HotWriteFrac: 0.25,
				WSWords: 16384, WSReadFrac: 0.0024, WSWriteFrac: 0.0009,
				SharedWords: 1024, SharedReadFrac: 0.02, WarmShared: true,
				LockEvery: 400, Locks: 64, CSLen: 2, ALUPerLoad: 1, Seed: 1}},
		{name: "freqmine", suite: "PARSEC", resembles: "FP-growth: random walks over a large private prefix tree",
			gen: Gen{Phases: 1, Slots: 16, HotWords: 1024, HotWriteFrac: 0.2,
				WSWords: 32768, WSReadFrac: 0.0153, WSWriteFrac: 0.0042, ALUPerLoad: 1, Seed: 1}},
		{name: "swaptions", suite: "PARSEC", resembles: "Monte Carlo paths written to fresh arrays, results in a packed shared array",
			gen: Gen{Phases: 1, Slots: 16, HotWords: 1024, HotWriteFrac: 0.3,
				WSWords: 8192, WSReadFrac: 0.0033, StreamWriteFrac: 0.079, StreamStride: 8,
				FalseShareEvery: 600, ALUPerLoad: 1, Seed: 1}},
		{name: "vips", suite: "PARSEC", resembles: "image pipeline: rows streamed in and out",
			gen: Gen{Phases: 1, Slots: 16, HotWords: 1024, HotWriteFrac: 0.2,
				StreamReadFrac: 0.204, StreamWriteFrac: 0.054, StreamStride: 8, ALUPerLoad: 1, Seed: 1}},
		{name: "x264", suite: "PARSEC", resembles: "motion search over shared reference frames, encoded output streamed",
			gen: Gen{Phases: 1, Slots: 16, HotWords: 1024, HotWriteFrac: 0.2,
				SharedWords: 65536, SharedReadFrac: 0.0077, StreamWriteFrac: 0.0225, StreamStride: 8, ALUPerLoad: 1, Seed: 1}},

		// SPLASH-2 (sharing patterns only; not calibrated).
		{name: "fft", suite: "SPLASH-2", resembles: "six-step FFT: barrier phases with all-to-all transposes through shared buffers",
			gen: Gen{Phases: 6, Slots: 16, HotWords: 1024, HotWriteFrac: 0.3,
				SharedWords: 1024, SharedReadFrac: 0.25, SharedWriteFrac: 0.25, WarmShared: true, ALUPerLoad: 1, Seed: 1}},
		{name: "lu", suite: "SPLASH-2", resembles: "blocked LU: a phase per pivot step; all read the pivot blocks written last step, each updates its own blocks",
			gen: Gen{Phases: 8, Slots: 16, HotWords: 1024, HotWriteFrac: 0.4,
				SharedWords: 1024, SharedReadFrac: 0.15, SharedWriteFrac: 0.1, WarmShared: true, ALUPerLoad: 1, Work: 4, Seed: 1}},
		{name: "radix", suite: "SPLASH-2", resembles: "radix sort: per-digit phases streaming keys in and scattering them into the next buffer; packed histogram counters",
			gen: Gen{Phases: 4, Slots: 16, HotWords: 512, HotWriteFrac: 0.3,
				StreamReadFrac: 0.2, StreamStride: 8, SharedWords: 16384, SharedWriteFrac: 0.2,
				FalseShareEvery: 8, ALUPerLoad: 1, Seed: 1}},
		{name: "barnes", suite: "SPLASH-2", resembles: "Barnes-Hut: tree cells updated under per-cell locks, forces from random reads of the shared tree, a barrier per step",
			gen: Gen{Phases: 4, Slots: 16, HotWords: 512, HotWriteFrac: 0.2,
				SharedWords: 2048, SharedReadFrac: 0.2, SharedWriteFrac: 0.01, WarmShared: true,
				LockEvery: 8, Locks: 256, CSLen: 3, ALUPerLoad: 1, Work: 8, Seed: 1}},
		{name: "water", suite: "SPLASH-2", resembles: "water-nsquared: partitioned molecules, pairwise forces added under per-molecule locks, a barrier per step",
			gen: Gen{Phases: 4, Slots: 16, HotWords: 1024, HotWriteFrac: 0.25,
				SharedWords: 2048, SharedReadFrac: 0.15, SharedWriteFrac: 0.01, WarmShared: true,
				LockEvery: 4, Locks: 32, CSLen: 3, ALUPerLoad: 1, Work: 10, Seed: 1}},
	}
}

// profiles lists the named synthetic profiles in the registry.
func profiles() []Synthetic {
	ps := []Synthetic{
		{Name: "mixed", Program: func(cores int) (*isa.Program, error) {
			if cores == 0 {
				cores = 8
			}
			return BenchMixed(cores, 200_000*cores).Program()
		}},
	}
	for _, p := range profileTable() {
		ps = append(ps, Synthetic{Name: p.name, Program: p.program})
	}
	return ps
}
