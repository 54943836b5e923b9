// Package sweep is weft's sweeps, in one place: the sweep file (Spec,
// parsed with errors that name the file, line and key), its expansion into
// points checked before anything runs (Plan, with the detectors its
// detectors key names), running a plan's points, or one shard of them,
// through sim's worker pool into a sweep directory that a later run
// resumes (Run), joining shards' directories (Merge), the metrics sweeps
// and the machine studies report (Metrics), and the report: the per-point
// table as CSV, Markdown and JSON, plots and report.md (WriteReport).
//
// A sweep file is TOML (DESIGN.md §7):
//
//	name = "cores"                 # names the sweep (the file's name without extension when not given)
//	base = "default"               # preset name or config file (relative to the sweep file)
//	runs = 5                       # runs per point: seeds seed .. seed+runs-1
//	seed = 1
//	out  = "weft-out/sweep-cores"  # output directory (relative to the working directory; weft-out/sweep-NAME when not given)
//	set  = ["sim.jitter_cycles=4"] # fixed overrides, applied to base in order
//	detectors = ["hb"]             # optional: detectors attached to every run
//
//	[[axis]]
//	key    = "machine.cores"
//	values = [2, 4, 8, 16]
//
//	[[workload]]
//	name   = "fft"
//	params = { phases = 2 }        # optional: synthetic-profile generator parameters
//
// Its points are the cross product of the axes' values and the workloads.
// The example sweeps are configs/sweeps/*.toml.
//
// A sweep directory holds sweep.toml (the spec in canonical form) and
// base.toml (its resolved base config), whose hash identifies the sweep;
// runs.jsonl, one Record a line; and, once every run is done, the report.
//
// sweep imports sim, configs, workloads, analysis (for the detectors) and
// results (tables and plots); analysis does not import sweep.
package sweep
