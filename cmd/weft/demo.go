package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"weft/configs"
	"weft/isa"
	"weft/results"
	"weft/sim"
	"weft/workloads"
)

// demoSeeds is how many seeds the demo runs per workload.
const demoSeeds = 20

// runDemo runs every workload in the registry for seeds seeds on the
// default preset (machine.cores raised per program as needed), all batches
// in parallel, and prints a table of outcomes and means with the host
// speed.
func runDemo(e env, seeds int, outDir string) error {
	base, err := configs.Load("default")
	if err != nil {
		return err
	}
	entries := workloads.List()
	type job struct {
		cfg  configs.Config
		prog *isa.Program
	}
	jobs := make([]job, len(entries))
	for i, en := range entries {
		prog, err := workloads.ProgramFor(en.Name, base.Machine.Cores)
		if err != nil {
			return err
		}
		cfg, note := sim.FitCores(base, prog)
		if note != "" {
			fmt.Fprintln(e.stderr, note)
		}
		jobs[i] = job{cfg: cfg, prog: prog}
	}

	bar := newProgress(e, false, len(jobs)*seeds, "demo")
	var mu sync.Mutex
	finished := 0
	onDone := func(int) {
		mu.Lock()
		finished++
		bar.done(finished)
		mu.Unlock()
	}
	results := make([][]sim.Result, len(jobs))
	errs := make([]error, len(jobs))
	start := time.Now()
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = sim.RunBatch(sim.Batch{
				Config: j.cfg, Program: j.prog, BaseSeed: j.cfg.Sim.Seed, Runs: seeds, OnDone: onDone,
			})
		}()
	}
	wg.Wait()
	host := time.Since(start)
	bar.finish()
	for i, err := range errs {
		if err != nil {
			return fmt.Errorf("demo: %s: %w", entries[i].Name, err)
		}
	}

	fmt.Fprintf(e.stdout, "weft demo: every workload, %d seeds each (seeds %d..%d), default machine (config %s)\n\n",
		seeds, base.Sim.Seed, base.Sim.Seed+uint64(seeds)-1, base.Hash())
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "WORKLOAD\tCLASS\tCORES\tRUNS\tMEAN CYCLES\tMEAN INSTRS\tOUTCOMES")
	var instrs uint64
	var runs int
	for i, rs := range results {
		var outs []string
		for _, g := range groupOutcomes(rs) {
			outs = append(outs, fmt.Sprintf("%s %d", g.name, g.count))
		}
		var cyc, ins float64
		for _, r := range rs {
			cyc += float64(r.Cycles)
			ins += float64(r.Instructions)
			instrs += r.Instructions
		}
		runs += len(rs)
		n := float64(max(len(rs), 1))
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.1f\t%.1f\t%s\n", entries[i].Name, entries[i].Class,
			jobs[i].cfg.Machine.Cores, len(rs), cyc/n, ins/n, strings.Join(outs, ", "))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	secs := max(host.Seconds(), 1e-9)
	fmt.Fprintf(e.stdout, "\nhost: %d runs, %d simulated instructions in %.2f s on %d host CPUs: %s simulated instructions/s\n",
		runs, instrs, secs, runtime.GOMAXPROCS(0), si(float64(instrs)/secs))
	if outDir != "" {
		report, err := writeDemoReport(outDir, entries, base, results, seeds)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "\nreport: %s\n", report)
	}
	fmt.Fprint(e.stdout, "\nnext: weft list; weft run -w NAME --runs 100; weft help\n")
	return nil
}

// demoGroups names the plot groups and each entry's group: the paper of a
// bug kernel's first row, "correct" for correct kernels and "profiles" for
// synthetic profiles, in a fixed order.
func demoGroups(entries []workloads.Entry) ([]string, []int) {
	groups := append(workloads.Papers(), "correct", "profiles")
	index := map[string]int{}
	for i, g := range groups {
		index[g] = i
	}
	groupOf := make([]int, len(entries))
	for i, en := range entries {
		g := "correct"
		switch {
		case en.Kind == workloads.Profile:
			g = "profiles"
		case en.Bug && len(en.Rows) > 0:
			g, _, _ = strings.Cut(en.Rows[0], ":")
		}
		if _, ok := index[g]; !ok {
			g = "correct"
		}
		groupOf[i] = index[g]
	}
	return groups, groupOf
}

// writeDemoReport writes outDir/report.md with the outcome and cycle
// breakdown plots, and returns the report's path.
func writeDemoReport(outDir string, entries []workloads.Entry, base configs.Config, runs [][]sim.Result, seeds int) (string, error) {
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return "", fmt.Errorf("report: %w", err)
	}
	names := make([]string, len(entries))
	for i, en := range entries {
		names[i] = en.Name
	}
	// The plots show one bar per group of workloads (a paper's bug kernels,
	// the correct kernels, the synthetic profiles): a bar per workload
	// would not fit. The table below has every workload.
	groups, groupOf := demoGroups(entries)
	outcomes := []string{"pass", "wrong_output", "hang", "error", "assert", "crash"}
	share := make([]results.Series, len(outcomes))
	runsIn := make([]float64, len(groups))
	for i, rs := range runs {
		runsIn[groupOf[i]] += float64(len(rs))
	}
	for k, o := range outcomes {
		share[k] = results.Series{Name: o, Values: make([]float64, len(groups))}
		for i, rs := range runs {
			for _, r := range rs {
				if r.Outcome == o {
					share[k].Values[groupOf[i]] += 1 / runsIn[groupOf[i]]
				}
			}
		}
	}
	buckets := []string{"busy", "mem_stall", "lock_wait", "barrier_wait", "cond_wait", "join_wait", "idle"}
	breakdown := make([]results.Series, len(buckets))
	for k, b := range buckets {
		breakdown[k] = results.Series{Name: b, Values: make([]float64, len(groups))}
	}
	totals := make([]float64, len(groups))
	for i, rs := range runs {
		g := groupOf[i]
		for _, r := range rs {
			for _, c := range r.Breakdown {
				for k, v := range []uint64{c.Busy, c.MemStall, c.LockWait, c.BarrierWait, c.CondWait, c.JoinWait, c.Idle} {
					breakdown[k].Values[g] += float64(v)
					totals[g] += float64(v)
				}
			}
		}
	}
	for g := range groups {
		for k := range breakdown {
			if totals[g] > 0 {
				breakdown[k].Values[g] /= totals[g]
			}
		}
	}
	if err := results.StackedBar("Outcomes over seeds", "share of runs", groups, share, filepath.Join(outDir, "outcomes")); err != nil {
		return "", err
	}
	if err := results.StackedBar("Cycle breakdown (all cores)", "share of core cycles", groups, breakdown, filepath.Join(outDir, "breakdown")); err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# weft demo\n\nEvery workload over seeds %d..%d on the `default` machine (config hash `%s`), from `weft` with no arguments.\n\n",
		base.Sim.Seed, base.Sim.Seed+uint64(seeds)-1, base.Hash())
	b.WriteString("| workload | class | runs | mean cycles | mean instructions | outcomes |\n|---|---|---|---|---|---|\n")
	for i, rs := range runs {
		var cyc, ins float64
		for _, r := range rs {
			cyc += float64(r.Cycles)
			ins += float64(r.Instructions)
		}
		n := float64(max(len(rs), 1))
		var outs []string
		for _, g := range groupOutcomes(rs) {
			outs = append(outs, fmt.Sprintf("%s %d", g.name, g.count))
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %.1f | %.1f | %s |\n", names[i], entries[i].Class, len(rs), cyc/n, ins/n, strings.Join(outs, ", "))
	}
	b.WriteString("\n![outcomes](outcomes.png)\n\n![cycle breakdown](breakdown.png)\n\nThe resolved config:\n\n```toml\n")
	b.WriteString(base.TOML())
	b.WriteString("```\n")
	path := filepath.Join(outDir, "report.md")
	if err := results.WriteFileAtomic(path, []byte(b.String())); err != nil {
		return "", fmt.Errorf("report: %w", err)
	}
	return path, nil
}
