// Package all is the registry of experiments: every reproduction (one
// sub-package of experiments per paper), weft's machine studies and the
// default experiment, by name. It sits below experiments and its
// sub-packages because it imports them all; `weft reproduce` and the
// default `weft` run look experiments up here.
package all

import (
	"fmt"
	"sort"
	"strings"

	"weft/experiments"
	"weft/experiments/bugaboo"
	"weft/experiments/conseq"
	"weft/experiments/falcon"
	"weft/experiments/inference"
	"weft/experiments/machine"
	"weft/experiments/pset"
	"weft/experiments/suite"
)

// List returns every experiment, sorted by name.
func List() []experiments.Experiment {
	es := []experiments.Experiment{
		suite.Experiment(),
		machine.Scaling(),
		machine.Cache(),
		bugaboo.Table5Experiment(),
		bugaboo.Experiment(),
		pset.Experiment(),
		falcon.Experiment(),
		inference.Experiment(),
		conseq.Experiment(),
	}
	sort.Slice(es, func(i, j int) bool { return es[i].Name < es[j].Name })
	return es
}

// Lookup returns the named experiment.
func Lookup(name string) (experiments.Experiment, error) {
	var names []string
	for _, e := range List() {
		if e.Name == name {
			return e, nil
		}
		names = append(names, e.Name)
	}
	return experiments.Experiment{}, fmt.Errorf("unknown experiment %q (known: %s)", name, strings.Join(names, ", "))
}
