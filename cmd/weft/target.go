package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strings"

	"weft/configs"
	"weft/isa"
	"weft/sim"
	"weft/workloads"
)

// targetFlags are the flags that choose a machine and a program, shared by
// run and trace.
type targetFlags struct {
	config   string
	workload string
	program  string
	seed     optUint
	sets     setList
	// psets is run's --psets file, for the reproduce line.
	psets string
}

// add registers the flags on fs.
func (t *targetFlags) add(fs *flagSet) {
	t.addMachine(fs, "the machine's `PRESET|FILE`: a preset name ("+strings.Join(configs.PresetNames(), ", ")+") or a TOML file",
		"override a config key, e.g. --set cache.l1.size_bytes=65536 (`KEY=VALUE`, repeatable, applied in order)")
	t.addProgram(fs, "run")
	fs.Var(&t.seed, "seed", "base `SEED` (default: the config's sim.seed); same as --set sim.seed=SEED (giving both is an error)")
}

// addMachine registers -c and --set with the given help.
func (t *targetFlags) addMachine(fs *flagSet, cfgUsage, setUsage string) {
	fs.StringVar(&t.config, "c", "default", cfgUsage)
	fs.StringVar(&t.config, "config", "default", cfgUsage)
	fs.Var(&t.sets, "set", setUsage)
}

// addProgram registers only the flags that name a program (-w, -p), for a
// command that runs nothing; verb says what it does with it.
func (t *targetFlags) addProgram(fs *flagSet, verb string) {
	fs.StringVar(&t.workload, "w", "", verb+" the registry workload `KERNEL` (see weft list)")
	fs.StringVar(&t.workload, "workload", "", verb+" the registry workload `KERNEL` (see weft list)")
	fs.StringVar(&t.program, "p", "", verb+" the assembly program in `FILE.s`")
	fs.StringVar(&t.program, "program", "", verb+" the assembly program in `FILE.s`")
}

// target is a resolved machine and program.
type target struct {
	cfg  configs.Config
	prog *isa.Program
	// note is the FitCores note ("" when machine.cores was not raised).
	note string
}

// resolve loads the config (-c), applies every --set in order, loads the
// program (-w or -p), raises machine.cores to the program's .cores, applies
// --seed and validates the result. Errors name the file, key or workload.
func (t *targetFlags) resolve(fs *flagSet) (target, error) {
	switch {
	case t.workload == "" && t.program == "":
		return target{}, usagef(fs, "%s: give a workload with -w KERNEL or a program with -p FILE.s", fs.Name())
	case t.workload != "" && t.program != "":
		return target{}, usagef(fs, "%s: give -w or -p, not both", fs.Name())
	}
	if t.seed.set {
		for _, set := range t.sets {
			if k, _, _ := strings.Cut(set, "="); strings.TrimSpace(k) == "sim.seed" {
				return target{}, usagef(fs, "%s: --seed %d and --set %s both set the seed; give one of them", fs.Name(), t.seed.v, set)
			}
		}
	}
	cfg, err := resolveConfig(t.config, t.sets)
	if err != nil {
		return target{}, err
	}
	prog, err := loadProgram(t.workload, t.program, cfg.Machine.Cores)
	if err != nil {
		return target{}, err
	}
	cfg, note := sim.FitCores(cfg, prog)
	if t.seed.set {
		if t.seed.v > math.MaxInt64 {
			return target{}, fmt.Errorf("--seed %d: must be at most %d (the largest TOML integer)", t.seed.v, int64(math.MaxInt64))
		}
		cfg.Sim.Seed = t.seed.v
	}
	if err := cfg.Validate(); err != nil {
		return target{}, fmt.Errorf("config: %w", err)
	}
	return target{cfg: cfg, prog: prog, note: note}, nil
}

// resolveConfig loads a preset or file, applies the overrides in order and
// validates the result.
func resolveConfig(nameOrPath string, sets []string) (configs.Config, error) {
	cfg, err := configs.Load(nameOrPath)
	if err != nil {
		return configs.Config{}, err
	}
	for _, s := range sets {
		if err := cfg.Set(s); err != nil {
			// Set's message starts by quoting the assignment; say it once.
			msg := strings.TrimPrefix(err.Error(), fmt.Sprintf("set %q: ", s))
			return configs.Config{}, fmt.Errorf("--set %s: %s", s, msg)
		}
	}
	if err := cfg.Validate(); err != nil {
		if len(sets) > 0 {
			return configs.Config{}, fmt.Errorf("config %s with --set %s: %w", nameOrPath, strings.Join(sets, " --set "), err)
		}
		return configs.Config{}, fmt.Errorf("config %s: %w", nameOrPath, err)
	}
	return cfg, nil
}

// loadProgram returns the registry workload name built for a machine of
// cores cores (synthetic profiles size their threads to it), or the program
// assembled from the file path.
func loadProgram(name, path string, cores int) (*isa.Program, error) {
	if name != "" {
		p, err := workloads.ProgramFor(name, cores)
		if errors.Is(err, workloads.ErrUnknown) {
			return nil, errors.New(strings.TrimPrefix(err.Error(), "workloads: "))
		}
		return p, err
	}
	return assembleFile(path)
}

// assembleFile reads and assembles the program in path. Assembler errors
// are returned as rawErrors, printed "file:line: message" as they are.
func assembleFile(path string) (*isa.Program, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read program: %w", err)
	}
	p, err := isa.Assemble(path, src)
	if err != nil {
		return nil, &rawError{err}
	}
	return p, nil
}

// source describes where the program came from, as flags that select it
// again: "-w NAME" or "-p FILE", with -c and --set when not the default.
func (t *targetFlags) source() string {
	var b strings.Builder
	if t.workload != "" {
		b.WriteString("-w " + shellQuote(t.workload))
	} else {
		b.WriteString("-p " + shellQuote(t.program))
	}
	if t.config != "default" {
		b.WriteString(" -c " + shellQuote(t.config))
	}
	for _, s := range t.sets {
		b.WriteString(" --set " + shellQuote(s))
	}
	if t.psets != "" {
		b.WriteString(" --psets " + shellQuote(t.psets))
	}
	return b.String()
}

// shellQuote quotes s for a POSIX shell when it holds anything unusual.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
