package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Every command that reports results across runs has a JSON form that
// parses and says what its text says: rank, pset train and check,
// conseq and infer.
func TestCommandsJSON(t *testing.T) {
	dir := t.TempDir()
	decode := func(args []string, v any) {
		t.Helper()
		out, _ := mustWeft(t, args...)
		if err := json.Unmarshal([]byte(out), v); err != nil {
			t.Fatalf("weft %v --json: %v\n%s", args, err, out)
		}
	}

	graphs := filepath.Join(dir, "g")
	mustWeft(t, "run", "-w", "mysql-binlog", "--runs", "30", "--detectors", "bbsw", "--graphs", graphs, "--quiet")
	files, _ := filepath.Glob(filepath.Join(graphs, "*.graph"))
	var rank struct {
		Method     string `json:"method"`
		Graphs     int    `json:"graphs"`
		Buggy      int    `json:"buggy"`
		CodePoints []struct {
			Rank int     `json:"rank"`
			PCs  []int32 `json:"pcs"`
		} `json:"code_points"`
	}
	decode(append([]string{"rank", "-w", "mysql-binlog", "--json"}, files...), &rank)
	if rank.Graphs != 30 || rank.Buggy == 0 || rank.Method != "labeled" || len(rank.CodePoints) == 0 || rank.CodePoints[0].Rank != 1 {
		t.Errorf("rank --json: %+v", rank)
	}

	ps := filepath.Join(dir, "cr.pset")
	var train struct {
		Passing  int   `json:"passing_runs"`
		Pairs    int   `json:"pairs"`
		NewPairs []int `json:"new_pairs"`
		Size     struct {
			FileBytes int `json:"file_bytes"`
		} `json:"size"`
	}
	decode([]string{"pset", "train", "-w", "counter-race", "--runs", "20", "--quiet", "--json", "-o", ps}, &train)
	if st, err := os.Stat(ps); err != nil || train.Passing == 0 || train.Pairs == 0 || len(train.NewPairs) != train.Passing || int64(train.Size.FileBytes) != st.Size() {
		t.Errorf("pset train --json: %+v (%v)", train, err)
	}
	var check struct {
		Runs       int `json:"runs"`
		Violating  int `json:"violating_runs"`
		Violations []struct {
			Runs int     `json:"runs"`
			PCs  []int32 `json:"pcs"`
		} `json:"violations"`
	}
	decode([]string{"pset", "check", "-w", "counter-race", "--seed", "100", "--runs", "20", "--quiet", "--json", ps}, &check)
	if check.Runs != 20 || (check.Violating > 0) != (len(check.Violations) > 0) {
		t.Errorf("pset check --json: %+v", check)
	}

	var cq struct {
		Sites   map[string]int `json:"sites"`
		Reports []struct {
			Tester *struct {
				Verdict string `json:"verdict"`
			} `json:"tester"`
		} `json:"reports"`
		Verdicts map[string]int `json:"verdicts"`
	}
	decode([]string{"conseq", "-w", "cq-mysql1", "--test", "--json"}, &cq)
	if cq.Sites["OUT"] == 0 || len(cq.Reports) == 0 || cq.Reports[0].Tester == nil || cq.Verdicts["bug"] == 0 {
		t.Errorf("conseq --json: %+v", cq)
	}

	var inf struct {
		Counterexamples []struct {
			Verdict string `json:"verdict"`
		} `json:"counterexamples"`
		Confirmed int `json:"confirmed"`
	}
	decode([]string{"infer", "-w", "infer-k2-lock-order", "--json"}, &inf)
	if len(inf.Counterexamples) == 0 || inf.Confirmed == 0 || inf.Counterexamples[0].Verdict != "confirmed" {
		t.Errorf("infer --json: %+v", inf)
	}
}
