package workloads

import "weft/isa"

// Synthetic is a named synthetic profile: a generator and its parameters.
type Synthetic struct {
	Name string
	// Program generates the workload for a machine of cores cores (0: the
	// profile's default thread count).
	Program func(cores int) (*isa.Program, error)
}

// profiles lists the named synthetic profiles in the registry.
func profiles() []Synthetic {
	return []Synthetic{
		{Name: "mixed", Program: func(cores int) (*isa.Program, error) {
			if cores == 0 {
				cores = 8
			}
			return BenchMixed(cores, 200_000*cores).Program()
		}},
	}
}
