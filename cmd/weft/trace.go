package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"weft/internal/atomicfile"

	"weft/configs"
	"weft/core"
	"weft/cpu"
	"weft/isa"
	"weft/sim"
)

// cmdTrace is `weft trace ... -o FILE` and `weft trace --text FILE`.
func cmdTrace(e env, args []string) error {
	fs := newFlagSet("trace",
		"weft trace [-c PRESET|FILE] (-w KERNEL | -p FILE.s) [--seed N] [--set KEY=VALUE]... [--kind KIND,...] -o FILE\n"+
			"       weft trace --text FILE [--kind KIND,...] [--thread N] [--addr ADDR] [--header]",
		`The first form runs the program once with every event kind recorded (or
only those --kind names) and writes the trace to FILE. The trace's header
holds the program (its disassembly, each instruction with its PC and source
line), the resolved config, the seed and the kinds recorded. The file
appears only when the run and the write succeed.

The second form prints a trace's events one a line: cycle, kind, core,
thread, PC, address (hex), the address as symbol+offset (a data symbol of
the program, or heap+offset), value, then the kind's flags and its extra
words and list, each labelled as the event contract names it (e.g.
gen=3 n=4 for a BarrierArrive; "Event contract" in the README says what
every field of every kind means). A "-" is an absent core, thread, PC,
address or symbol. --header also prints the program with every
instruction's PC and source line, to map the PC column back to the source,
and the config.

Filters combine: --kind keeps the named kinds, --thread one thread, --addr
the accesses to that word and the coherence events (bus transactions,
snoops, fills, evictions) on the cache line holding it. A corrupt or
truncated file is an error (exit status 1) after the events before it.`)
	var t targetFlags
	t.add(fs)
	var out string
	fs.StringVar(&out, "o", "", "write the trace to `FILE`")
	fs.StringVar(&out, "output", "", "write the trace to `FILE`")
	text := fs.Bool("text", false, "print the events of the trace FILE given as argument")
	var kinds kindFlag
	fs.Var(&kinds, "kind", "keep only these event kinds (`KIND,...`, e.g. Read,Write; repeatable): with -o, record only them; with --text, print only them")
	var thread optInt
	fs.Var(&thread, "thread", "with --text: keep only events of thread `N`")
	var addr optUint
	fs.Var(&addr, "addr", "with --text: keep only accesses to word `ADDR` (e.g. 0x10040) and coherence events on its cache line")
	header := fs.Bool("header", false, "with --text: also print the header's program and config as comments")
	quiet := fs.Bool("quiet", false, "no notes on stderr")
	pos, err := fs.parse(e, args)
	if err != nil {
		return err
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })

	if *text {
		for _, name := range []string{"c", "config", "w", "workload", "p", "program", "seed", "set", "o", "output"} {
			if given[name] {
				dash := "--"
				if len(name) == 1 {
					dash = "-"
				}
				return usagef(fs, "trace: %s%s does not go with --text", dash, name)
			}
		}
		if len(pos) != 1 {
			return usagef(fs, "trace --text: want one trace FILE, got %d arguments", len(pos))
		}
		f := traceFilter{kinds: kinds.mask, thread: thread, addr: addr}
		return printTrace(e.stdout, pos[0], f, *header)
	}
	for _, name := range []string{"thread", "addr", "header"} {
		if given[name] {
			return usagef(fs, "trace: --%s goes only with --text", name)
		}
	}
	if len(pos) > 0 {
		return usagef(fs, "trace: unexpected argument %q (did you mean --text %s?)", pos[0], pos[0])
	}
	if out == "" {
		return usagef(fs, "trace: give the output file with -o FILE")
	}
	tg, err := t.resolve(fs)
	if err != nil {
		return err
	}
	if tg.note != "" && !*quiet {
		fmt.Fprintln(e.stderr, tg.note)
	}
	n, r, err := writeTrace(tg, out, kinds.mask)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s to %s: %s seed %d, %s, %s, %s\n",
		plural(n, "event"), out, r.Workload, r.Seed, outcomeText(r, tg.prog), plural(r.Cycles, "cycle"), plural(r.Instructions, "instruction"))
	return nil
}

// writeTrace runs tg once with a trace writer attached for the kinds in
// mask (0: every kind) and writes the trace to path. It writes to a temporary file in the same
// directory and renames it on success, so a failed run leaves no partial
// trace. It returns the number of events written and the run's result.
func writeTrace(tg target, path string, mask core.KindMask) (n uint64, r sim.Result, err error) {
	if mask == 0 {
		mask = core.AllKinds
	}
	tmp, err := atomicfile.Create(path)
	if err != nil {
		return 0, sim.Result{}, fmt.Errorf("write trace: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Abort()
		}
	}()
	tw, err := core.NewTraceWriter(tmp, core.TraceHeader{
		Version:     core.TraceVersion,
		Program:     isa.Listing(tg.prog),
		ProgramName: tg.prog.Name,
		Config:      tg.cfg.TOML(),
		Seed:        tg.cfg.Sim.Seed,
		Kinds:       mask,
	})
	if err != nil {
		return 0, sim.Result{}, fmt.Errorf("write trace %s: %w", path, err)
	}
	count := core.ObserverFunc(func(ev *core.Event) {
		n++
		tw.Observe(ev)
	})
	r, err = sim.Run(tg.cfg, tg.prog, tg.cfg.Sim.Seed, sim.WithObserver(mask, count))
	if err != nil {
		return 0, sim.Result{}, err
	}
	if err := tw.Close(); err != nil {
		return 0, sim.Result{}, fmt.Errorf("write trace %s: %w", path, err)
	}
	if err := tmp.Commit(); err != nil {
		return 0, sim.Result{}, fmt.Errorf("write trace: %w", err)
	}
	return n, r, nil
}

// traceFilter selects the events `weft trace --text` prints.
type traceFilter struct {
	kinds  core.KindMask // 0: every kind
	thread optInt
	addr   optUint
	// lineMask clears the offset within a cache line (from the trace's
	// config), for matching line-granular events against addr.
	lineMask uint64
}

// lineKinds are the events whose address is a cache line's.
const lineKinds = core.KindMask(1)<<core.KindBusRd | 1<<core.KindBusRdX | 1<<core.KindBusUpgr |
	1<<core.KindWriteback | 1<<core.KindSnoop | 1<<core.KindFill | 1<<core.KindEvict | 1<<core.KindMetaPiggyback

// match reports whether ev passes the filter.
func (f *traceFilter) match(ev *core.Event) bool {
	if f.kinds != 0 && !f.kinds.Has(ev.Kind) {
		return false
	}
	if f.thread.set && int64(ev.Thread) != f.thread.v {
		return false
	}
	if f.addr.set && ev.Addr != f.addr.v && !(lineKinds.Has(ev.Kind) && ev.Addr == f.addr.v&f.lineMask) {
		return false
	}
	return true
}

// printTrace prints the events of the trace file path that pass f, one a
// line, between comment lines describing the trace.
func printTrace(w io.Writer, path string, f traceFilter, header bool) error {
	file, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("read trace: %w", err)
	}
	defer file.Close()
	traceErr := func(err error) error {
		return fmt.Errorf("trace %s: %s", path, strings.TrimPrefix(err.Error(), "trace: "))
	}
	tr, err := core.NewTraceReader(file)
	if err != nil {
		return traceErr(err)
	}
	h := tr.Header()
	bw := bufio.NewWriter(w)
	defer bw.Flush()

	f.lineMask = ^uint64(63)
	lineBytes := 64
	desc := fmt.Sprintf("# weft trace v%d: program %s, seed %d", h.Version, h.ProgramName, h.Seed)
	if cfg, err := configs.Parse(path+" (header config)", []byte(h.Config)); err == nil {
		lineBytes = cfg.Cache.L1.LineBytes
		f.lineMask = ^uint64(lineBytes - 1)
		desc += fmt.Sprintf(", %d cores, config %s", cfg.Machine.Cores, cfg.Hash())
	} else {
		desc += " (its config does not parse: " + err.Error() + ")"
	}
	syms := symbolizer{}
	if prog, err := isa.Assemble(h.ProgramName+".s", []byte(h.Program)); err == nil {
		syms = symbolizer{prog: prog, heap: cpu.HeapBase(prog, lineBytes)}
	} else {
		desc += " (its program does not assemble, so addresses have no symbols)"
	}
	if h.Kinds != core.AllKinds {
		desc += "; recorded kinds " + strings.Join(h.Kinds.Names(), ",")
	}
	fmt.Fprintln(bw, desc)
	if header {
		fmt.Fprint(bw, commentLines("program", h.Program))
		fmt.Fprint(bw, commentLines("config", h.Config))
	}
	fmt.Fprintf(bw, "# %10s  %-13s %4s %6s %5s  %-12s %-16s %8s %s\n", "cycle", "kind", "core", "thread", "pc", "addr", "symbol", "value", "extra")

	var ev core.Event
	var total, shown uint64
	for {
		err := tr.Next(&ev)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fmt.Fprintf(bw, "# stopped after %s (%d shown): the file is damaged\n", plural(total, "event"), shown)
			return traceErr(err)
		}
		total++
		if !f.match(&ev) {
			continue
		}
		shown++
		bw.Write(appendEvent(nil, &ev, syms.name))
	}
	fmt.Fprintf(bw, "# %d of %s shown\n", shown, plural(total, "event"))
	return bw.Flush()
}

// commentLines prints text under a "# name:" line, each line commented.
func commentLines(name, text string) string {
	var b strings.Builder
	b.WriteString("# " + name + ":\n")
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		b.WriteString("#   " + line + "\n")
	}
	return b.String()
}

// symbolizer names the addresses of a trace's program.
type symbolizer struct {
	prog *isa.Program // nil: no symbols
	heap uint64       // the first heap address
}

// name spells address a as symbol+offset: a data symbol of the program,
// heap+offset from the first heap word, or "-" when a is neither (the
// null page, or a trace whose program did not assemble).
func (s symbolizer) name(a uint64) string {
	switch {
	case s.prog == nil:
	case a >= s.heap:
		if a == s.heap {
			return "heap"
		}
		return "heap+" + strconv.FormatUint(a-s.heap, 10)
	default:
		if sym, ok := s.prog.SymbolAt(a); ok {
			return sym
		}
	}
	return "-"
}

// appendEvent appends ev as one readable line; sym names its address.
func appendEvent(b []byte, ev *core.Event, sym func(uint64) string) []byte {
	dash := func(v int32) string {
		if v < 0 {
			return "-"
		}
		return strconv.Itoa(int(v))
	}
	addr, name := "-", "-"
	if ev.Addr != 0 {
		addr = fmt.Sprintf("0x%08x", ev.Addr)
		name = sym(ev.Addr)
	}
	b = fmt.Appendf(b, "  %10d  %-13s %4s %6s %5s  %-12s %-16s %8d", ev.Cycle, ev.Kind, dash(ev.Core), dash(ev.Thread), dash(ev.PC), addr, name, ev.Value)
	if ev.Flags != 0 {
		var names []string
		for _, fl := range [...]struct {
			bit  uint8
			name string
		}{{core.FlagSync, "sync"}, {core.FlagHit, "hit"}, {core.FlagC2C, "c2c"}} {
			if ev.Flags&fl.bit != 0 {
				names = append(names, fl.name)
			}
		}
		if rest := ev.Flags &^ (core.FlagSync | core.FlagHit | core.FlagC2C); rest != 0 {
			names = append(names, fmt.Sprintf("0x%02x", rest))
		}
		b = fmt.Appendf(b, " flags=%s", strings.Join(names, ","))
	}
	// Words and List are labelled from the event contract (core.Contract):
	// each used word as label=value, and any word the contract leaves
	// unused but the event sets as w[i]=value.
	c := core.ContractOf(ev.Kind)
	for i, v := range ev.Words {
		switch f := c.Words[i]; {
		case ev.Kind == core.KindFill && i == 0 && ev.Flags&core.FlagC2C == 0:
			// Memory supplied the line: there is no supplying core.
		case f.Used():
			b = fmt.Appendf(b, " %s=", f.Label)
			if f.Label == "srcpc" && v == ^uint64(0) {
				b = append(b, "null"...)
			} else if f.Label == "from" && int64(v) < 0 {
				b = strconv.AppendInt(b, int64(v), 10)
			} else {
				b = strconv.AppendUint(b, v, 10)
			}
		case v != 0:
			b = fmt.Appendf(b, " w[%d]=%d", i, v)
		}
	}
	if len(ev.List) > 0 {
		label := c.List.Label
		if label == "" {
			label = "list"
		}
		b = fmt.Appendf(b, " %s=[", label)
		for i, v := range ev.List {
			if i > 0 {
				b = append(b, ' ')
			}
			if v == ^uint64(0) {
				// All ones is the contract's NULL (a drained edge's NULL
				// source).
				b = append(b, "null"...)
				continue
			}
			b = strconv.AppendUint(b, v, 10)
		}
		b = append(b, ']')
	}
	b = append(b, '\n')
	return b
}
