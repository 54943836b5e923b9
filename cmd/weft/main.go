// Command weft is the command line of the weft multicore simulator: it runs
// workloads on a configured machine, alone, in batches and in sweeps;
// rebuilds the papers' tables and figures; assembles programs; records and
// prints event traces and runs detectors over them; drives Bugaboo's
// ranking, PSet's learning and checking, ConSeq and interleaving inference
// on one program; lists the workloads and detectors and shows resolved
// configs (DESIGN.md §7, §8).
//
// Usage:
//
//	weft                      run the default experiment (every workload, 20 seeds each)
//	weft run ...              run a kernel or program once or many times
//	weft asm FILE.s           assemble and print the disassembly
//	weft sweep FILE ...       run a sweep (axes × workloads × seeds)
//	weft merge DIR... --out DIR  join a sweep's shards
//	weft reproduce NAME|all   rebuild a paper's tables and figures
//	weft trace ... -o FILE    record a run's events to a trace file
//	weft trace --text FILE    print a trace file's events
//	weft detect FILE --detectors a,b  run detectors over a trace file
//	weft rank ... GRAPH...    rank code points over Bugaboo graph files
//	weft pset train|show|check ...  learn PSets, show a PSet file, check runs against one
//	weft conseq ...           ConSeq on one program (sites, critical reads, reports, the tester)
//	weft infer ...            interleaving inference from one passing run
//	weft list [--detectors] [--json]  list the workloads (or the detectors)
//	weft config show|presets  print a fully resolved config, or list the presets
//	weft version              print the version results record (also --version)
//	weft help [COMMAND]       print usage
//
// The exit status is 0 on success whatever the simulated programs did, 1 for
// bad input or an internal error (with a message on stderr), 2 for an
// unknown command or bad flags (with the message and a hint naming the
// help to read on stderr), and 130 (143 for SIGTERM) for a weft run (one
// run or a batch) or a weft sweep stopped by Ctrl-C or SIGTERM after
// writing the runs it finished.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"weft/experiments"
	"weft/experiments/all"
	"weft/internal/suggest"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// env is what a command sees of the process: its output streams, whether
// stderr is a terminal (for progress bars) and the context that stops a
// long command early (weft run and weft sweep add SIGINT and SIGTERM to
// it).
type env struct {
	stdout, stderr io.Writer
	// tty reports whether stderr is an interactive terminal.
	tty bool
	// ctx, when cancelled, stops a batch as a signal does (tests use it;
	// nil is context.Background).
	ctx context.Context
}

// context returns the command's context.
func (e env) context() context.Context {
	if e.ctx == nil {
		return context.Background()
	}
	return e.ctx
}

// command is one subcommand.
type command struct {
	name    string
	summary string
	// run parses args (everything after the command name) and runs the
	// command. Given "-h" it prints its usage on stdout and returns errHelp.
	run func(e env, args []string) error
}

// commands returns the subcommands in the order usage lists them.
func commands() []command {
	return []command{
		{"run", "run a kernel or program (one run, or a batch of seeds)", cmdRun},
		{"asm", "assemble a program and print its disassembly", cmdAsm},
		{"sweep", "run a sweep of configs and workloads, resumable and shardable", cmdSweep},
		{"merge", "join the shards of a sweep and write its report", cmdMerge},
		{"reproduce", "rebuild a paper's tables and figures (or all of them)", cmdReproduce},
		{"trace", "record a run's events to a trace file, or print one (--text)", cmdTrace},
		{"detect", "run detectors over a trace file, offline", cmdDetect},
		{"rank", "rank code points over Bugaboo graph files (labeled, unlabeled, deployment)", cmdRank},
		{"pset", "learn PSets from passing runs, show a PSet file, check runs against one", cmdPSet},
		{"conseq", "ConSeq on one program: failure sites, critical reads, suspicious interleavings from a correct run, the tester", cmdConseq},
		{"infer", "interleaving inference from one passing run: candidates, counterexamples, enforced replays", cmdInfer},
		{"list", "list the workloads in the registry", cmdList},
		{"config", "show a fully resolved config, or list the presets", cmdConfig},
		{"version", "print weft's version (module version, VCS revision, Go toolchain)", cmdVersion},
		{"help", "print usage of weft or of one command", cmdHelp},
	}
}

// commandNames lists the subcommands' names in usage order.
func commandNames() []string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return names
}

// lookupCommand returns the named subcommand.
func lookupCommand(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// run is the whole program: it runs the command in args, writing to stdout
// and stderr, and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	return runContext(context.Background(), args, stdout, stderr)
}

// runContext is run with a context whose cancellation stops a batch as
// SIGINT does.
func runContext(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	e := env{stdout: stdout, stderr: stderr, tty: isTerminal(stderr), ctx: ctx}
	if len(args) == 0 {
		return exitStatus(e, defaultExperiment(e))
	}
	switch args[0] {
	case "-h", "-help", "--help":
		printUsage(stdout)
		return 0
	case "-version", "--version":
		return exitStatus(e, cmdVersion(e, args[1:]))
	}
	c, ok := lookupCommand(args[0])
	if !ok {
		if strings.HasPrefix(args[0], "-") {
			return exitStatus(e, usagef(topLevel{}, "flag %s before a command", args[0]))
		}
		msg := fmt.Sprintf("unknown command %q", args[0])
		if near := suggest.Closest(args[0], commandNames()); len(near) > 0 {
			msg += "; did you mean " + near[0] + "?"
		}
		return exitStatus(e, usagef(topLevel{}, "%s (commands: %s)", msg, strings.Join(commandNames(), ", ")))
	}
	return exitStatus(e, c.run(e, args[1:]))
}

// defaultExperiment is what weft runs with no arguments: the default
// experiment on embedded defaults, printed as a summary table and written
// to weft-out/report.md with its plots.
func defaultExperiment(e env) error { return runDefault(e, experiments.Env{}, "weft-out") }

// runDefault runs the default experiment and writes dir/report.md.
func runDefault(e env, xenv experiments.Env, dir string) error {
	x, err := all.Lookup("default")
	if err != nil {
		return err
	}
	if _, err := runExperiment(e, x, xenv, dir, "report", false); err != nil {
		return err
	}
	fmt.Fprint(e.stdout, "\nnext: weft list; weft run -w NAME --runs 100; weft reproduce --list; weft help\n")
	return nil
}

// printUsage writes weft's top-level usage to w.
func printUsage(w io.Writer) {
	fmt.Fprint(w, `weft: a discrete-event simulator of a small shared-memory multicore

usage:
  weft                  run the default experiment: every workload, 20 seeds each, on the
                        default machine; writes weft-out/report.md with plots
  weft COMMAND [ARGS]   run a command

commands:
`)
	width := 0
	for _, c := range commands() {
		width = max(width, len(c.name))
	}
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-*s  %s\n", width, c.name, c.summary)
	}
	fmt.Fprint(w, `
Run "weft help COMMAND" or "weft COMMAND -h" for a command's flags.
Flags may come before or after arguments; -x and --x are the same flag.
Exit status: 0 on success whatever the simulated programs did, 1 for bad
input or an internal error, 2 for an unknown command or bad flags, 130
(143 for SIGTERM) for a run, batch or sweep stopped by Ctrl-C after
keeping its finished runs.
`)
}

// cmdHelp is `weft help [COMMAND]`.
func cmdHelp(e env, args []string) error {
	switch {
	case len(args) == 0:
		printUsage(e.stdout)
		return nil
	case args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help":
		fmt.Fprint(e.stdout, "usage: weft help [COMMAND]\n\nPrints weft's usage, or the usage and flags of COMMAND.\n")
		return nil
	case len(args) > 1:
		return usagef(topLevel{}, "help takes at most one command, got %q", strings.Join(args, " "))
	}
	c, ok := lookupCommand(args[0])
	if !ok {
		return usagef(topLevel{}, "unknown command %q", args[0])
	}
	if err := c.run(e, []string{"-h"}); err != nil && !errors.Is(err, errHelp) {
		return err
	}
	return nil
}

// errHelp is returned by a command that printed its usage because of -h.
var errHelp = errors.New("help requested")

// usageError is a bad command line: weft prints its message and a hint
// naming the help to read on stderr, and exits with status 2. The full
// usage is not printed: it would bury the one line that matters.
type usageError struct {
	msg string
	// help is the command that prints the relevant usage: "weft help run".
	help string
}

func (u *usageError) Error() string { return u.msg }

// helper is what a usage error's hint points to: a command's flags, or
// weft's top-level usage.
type helper interface{ helpCommand() string }

// topLevel is weft's own usage, for errors before a command is known.
type topLevel struct{}

func (topLevel) helpCommand() string { return "weft help" }

// usagef returns a usageError whose hint names h's help.
func usagef(h helper, format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...), help: h.helpCommand()}
}

// rawError is an error whose message is printed as it is, without the
// "weft: " prefix: assembler messages already start with "file:line:".
type rawError struct{ err error }

func (r *rawError) Error() string { return r.err.Error() }
func (r *rawError) Unwrap() error { return r.err }

// exitStatus prints err, if any, on stderr and returns the exit status.
func exitStatus(e env, err error) int {
	var ue *usageError
	var re *rawError
	var ie *interruptedError
	switch {
	case err == nil, errors.Is(err, errHelp):
		return 0
	case errors.As(err, &ie):
		fmt.Fprintf(e.stderr, "weft: %s\n", ie.msg)
		return ie.status
	case errors.As(err, &ue):
		fmt.Fprintf(e.stderr, "weft: %s\nrun '%s' for usage\n", ue.msg, ue.help)
		return 2
	case errors.As(err, &re):
		fmt.Fprintln(e.stderr, strings.TrimRight(err.Error(), "\n"))
		return 1
	}
	for _, line := range strings.Split(strings.TrimRight(err.Error(), "\n"), "\n") {
		fmt.Fprintf(e.stderr, "weft: %s\n", line)
	}
	return 1
}

// isTerminal reports whether w is an interactive terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
