package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"weft/core"
	"weft/internal/suggest"
)

// flagSet is one command's flags with the text of its usage.
type flagSet struct {
	*flag.FlagSet
	// synopsis is the usage line(s) after "usage: ".
	synopsis string
	// about says what the command does, printed after the synopsis.
	about string
}

// newFlagSet returns an empty flag set for the command name. Parse errors
// are reported by parse, never printed by the flag package itself.
func newFlagSet(name, synopsis, about string) *flagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return &flagSet{FlagSet: fs, synopsis: synopsis, about: about}
}

// parse parses args, allowing flags before and after positional arguments
// ("--" ends the flags), and returns the positional arguments. With -h it
// prints the usage on e.stdout and returns errHelp; a bad flag is a
// usageError.
func (f *flagSet) parse(e env, args []string) ([]string, error) {
	var pos []string
	for {
		err := f.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			f.usage(e.stdout)
			return nil, errHelp
		}
		if err != nil {
			msg := err.Error()
			if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
				if bare := strings.TrimLeft(name, "-"); len(bare) > 1 {
					name = "--" + bare
				}
				msg = "unknown flag " + name
				if near := suggest.Closest(strings.TrimLeft(name, "-"), f.flagNames()); len(near) > 0 {
					msg += "; did you mean --" + near[0] + "?"
				}
			}
			return nil, usagef(f, "%s: %s", f.Name(), msg)
		}
		rest := f.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// usage writes the command's full usage to w: synopsis, description and
// flags.
func (f *flagSet) usage(w io.Writer) {
	fmt.Fprintf(w, "usage: %s\n", f.synopsis)
	if f.about != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimRight(f.about, "\n"))
	}
	f.printFlags(w)
}

// helpCommand is the command that prints f's usage, for the hint under a
// bad command line.
func (f *flagSet) helpCommand() string { return "weft help " + f.Name() }

// flagNames lists f's flags of more than one letter.
func (f *flagSet) flagNames() []string {
	var names []string
	f.VisitAll(func(fl *flag.Flag) {
		if len(fl.Name) > 1 {
			names = append(names, fl.Name)
		}
	})
	return names
}

// printFlags writes the flags to w. Flags bound to the same variable (-c
// and --config) are listed together.
func (f *flagSet) printFlags(w io.Writer) {
	type entry struct {
		names []string
		flag  *flag.Flag
	}
	var entries []*entry
	f.VisitAll(func(fl *flag.Flag) {
		for _, en := range entries {
			if en.flag.Value == fl.Value {
				en.names = append(en.names, fl.Name)
				return
			}
		}
		entries = append(entries, &entry{names: []string{fl.Name}, flag: fl})
	})
	if len(entries) == 0 {
		return
	}
	fmt.Fprint(w, "\nflags:\n")
	for _, en := range entries {
		sort.Slice(en.names, func(i, j int) bool { return len(en.names[i]) < len(en.names[j]) })
		arg, text := flag.UnquoteUsage(en.flag)
		if _, isBool := en.flag.Value.(interface{ IsBoolFlag() bool }); isBool {
			arg = ""
		}
		var spell []string
		for _, n := range en.names {
			if len(n) == 1 {
				spell = append(spell, "-"+n)
			} else {
				spell = append(spell, "--"+n)
			}
		}
		head := strings.Join(spell, ", ")
		if arg != "" {
			head += " " + arg
		}
		if d := en.flag.DefValue; d != "" && d != "false" && d != "0" {
			if _, err := strconv.ParseFloat(d, 64); err != nil {
				d = strconv.Quote(d)
			}
			text += " (default " + d + ")"
		}
		fmt.Fprintf(w, "  %s\n      %s\n", head, text)
	}
}

// setList collects the repeatable --set key=value overrides, in order.
type setList []string

func (s *setList) String() string { return strings.Join(*s, " ") }

// Set appends one override; it is checked when the config is resolved.
func (s *setList) Set(v string) error {
	*s = append(*s, v)
	return nil
}

// optUint is an unsigned flag that records whether it was given.
type optUint struct {
	v   uint64
	set bool
}

func (o *optUint) String() string {
	if o == nil || !o.set {
		return ""
	}
	return strconv.FormatUint(o.v, 10)
}

// Set parses a decimal, 0x hex or 0b binary unsigned integer.
func (o *optUint) Set(s string) error {
	v, err := strconv.ParseUint(s, 0, 64)
	if err != nil {
		return errors.New("not an unsigned integer")
	}
	o.v, o.set = v, true
	return nil
}

// optInt is a signed flag that records whether it was given.
type optInt struct {
	v   int64
	set bool
}

func (o *optInt) String() string {
	if o == nil || !o.set {
		return ""
	}
	return strconv.FormatInt(o.v, 10)
}

// Set parses a decimal integer.
func (o *optInt) Set(s string) error {
	v, err := strconv.ParseInt(s, 0, 64)
	if err != nil {
		return errors.New("not an integer")
	}
	o.v, o.set = v, true
	return nil
}

// kindFlag is a set of event kinds given as a comma-separated list of
// names (case-insensitive); it may be repeated.
type kindFlag struct {
	mask  core.KindMask
	names []string
}

func (k *kindFlag) String() string {
	if k == nil {
		return ""
	}
	return strings.Join(k.names, ",")
}

// Set adds the kinds named in the comma-separated list s.
func (k *kindFlag) Set(s string) error {
	if strings.Trim(s, ", ") == "" {
		return fmt.Errorf("no event kind named in %q", s)
	}
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		kind, err := core.ParseKind(name)
		if err != nil {
			return fmt.Errorf("unknown event kind %q (kinds: %s)", name, strings.Join(core.AllKinds.Names(), ", "))
		}
		k.mask |= core.MaskOf(kind)
		k.names = append(k.names, kind.String())
	}
	return nil
}
