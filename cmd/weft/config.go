package main

import (
	"fmt"
	"strings"

	"weft/configs"
)

// cmdConfig is `weft config show [PRESET|FILE] [--set K=V]...` and
// `weft config presets`.
func cmdConfig(e env, args []string) error {
	fs := newFlagSet("config", "weft config show [PRESET|FILE] [--set KEY=VALUE]...\n       weft config presets",
		`show prints the fully resolved config: the preset or file (default: the
"default" preset) with every --set applied in order, as TOML holding every
key, under a first comment line giving its hash. The output loads back as a
config file (weft run -c FILE).

presets lists the embedded presets.`)
	var sets setList
	fs.Var(&sets, "set", "override a config key (`KEY=VALUE`, repeatable, applied in order)")
	pos, err := fs.parse(e, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef(fs, "config: want a subcommand: show or presets")
	}
	switch pos[0] {
	case "show":
		if len(pos) > 2 {
			return usagef(fs, "config show: want at most one PRESET or FILE, got %q", strings.Join(pos[1:], " "))
		}
		name := "default"
		if len(pos) == 2 {
			name = pos[1]
		}
		cfg, err := resolveConfig(name, sets)
		if err != nil {
			return err
		}
		what := name
		if len(sets) > 0 {
			what += " --set " + strings.Join(sets, " --set ")
		}
		_, err = fmt.Fprint(e.stdout, configText(cfg, what))
		return err
	case "presets":
		if len(pos) > 1 || len(sets) > 0 {
			return usagef(fs, "config presets takes no arguments")
		}
		for _, name := range configs.PresetNames() {
			fmt.Fprintln(e.stdout, name)
		}
		return nil
	}
	return usagef(fs, "config: unknown subcommand %q (want show or presets)", pos[0])
}
