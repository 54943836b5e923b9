package workloads_test

import (
	"reflect"
	"strings"
	"testing"

	"weft/workloads"
)

func TestProgramWithParams(t *testing.T) {
	names := strings.Join(workloads.ParamNames(), " ")
	for _, want := range []string{"threads", "phases", "ops_per_thread", "ws_words", "hot_write_frac", "cs_len", "alu_per_load", "warm_shared", "false_share_every", "seed"} {
		if !strings.Contains(" "+names+" ", " "+want+" ") {
			t.Errorf("ParamNames() = %s; missing %s", names, want)
		}
	}
	plain, err := workloads.ProgramFor("fft", 4)
	if err != nil {
		t.Fatal(err)
	}
	same, err := workloads.ProgramWithParams("fft", 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(same, plain) {
		t.Error("ProgramWithParams with no params differs from ProgramFor")
	}
	p, err := workloads.ProgramWithParams("fft", 4, map[string]any{"phases": int64(2), "hot_write_frac": 0.5, "warm_shared": false})
	if err != nil {
		t.Fatal(err)
	}
	if p.MinCores != 4 {
		t.Errorf("threads follow cores: MinCores = %d, want 4", p.MinCores)
	}
	p, err = workloads.ProgramWithParams("lu", 4, map[string]any{"threads": int64(2)})
	if err != nil {
		t.Fatal(err)
	}
	if p.MinCores != 2 {
		t.Errorf("threads=2: MinCores = %d", p.MinCores)
	}
	for _, tc := range []struct {
		name   string
		params map[string]any
		want   string
	}{
		{"fft", map[string]any{"phasez": int64(2)}, `unknown param "phasez"`},
		{"fft", map[string]any{"phases": 2.5}, "param phases: want an integer"},
		{"fft", map[string]any{"phases": int64(0)}, "phases 0"},
		{"fft", map[string]any{"warm_shared": int64(1)}, "param warm_shared: want true or false"},
		{"counter-race", map[string]any{"phases": int64(2)}, "takes no params"},
		{"mixed", map[string]any{"phases": int64(2)}, "takes no params"},
		{"no-such", map[string]any{"phases": int64(2)}, "unknown workload"},
	} {
		_, err := workloads.ProgramWithParams(tc.name, 4, tc.params)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: err = %v, want it to contain %q", tc.name, tc.params, err, tc.want)
		}
	}
}
