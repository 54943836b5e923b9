package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"weft/detectors"
	"weft/workloads"
)

// listEntry is one workload as `weft list --json` prints it.
type listEntry struct {
	Name   string   `json:"name"`
	Kind   string   `json:"kind"`
	Class  string   `json:"class"`
	Bug    bool     `json:"bug"`
	Cores  int      `json:"cores"`
	Rows   []string `json:"rows"`
	Desc   string   `json:"desc"`
	Source string   `json:"source"`
	File   string   `json:"file"`
}

// cmdList is `weft list [--json]`.
func cmdList(e env, args []string) error {
	fs := newFlagSet("list", "weft list [--detectors] [--json]",
		`Lists every workload in the registry, sorted by name: its name, kind
(kernel or profile), bug class
(none for a correct workload), the minimum cores it needs, the paper rows it
models and its description.

With --json it prints one JSON array holding one object per workload, with
the keys name, kind, class, bug, cores, rows, desc, source and file.

With --detectors it lists the software detectors instead: each name (for
--detectors), the event kinds it needs, whether it learns across runs, and
what it reports (with --json: name, kinds, learns, summary).`)
	asJSON := fs.Bool("json", false, "print one JSON array of workload objects")
	dets := fs.Bool("detectors", false, "list the software detectors instead")
	pos, err := fs.parse(e, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef(fs, "list: unexpected argument %q", pos[0])
	}
	if *dets {
		return listDetectors(e, *asJSON)
	}
	entries := workloads.List()
	if *asJSON {
		out := make([]listEntry, len(entries))
		for i, en := range entries {
			rows := en.Rows
			if rows == nil {
				rows = []string{}
			}
			out[i] = listEntry{Name: en.Name, Kind: en.Kind.String(), Class: en.Class, Bug: en.Bug,
				Cores: en.Cores, Rows: rows, Desc: en.Desc, Source: en.Source, File: en.File}
		}
		b, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return fmt.Errorf("encode workload list: %w", err)
		}
		_, err = fmt.Fprintf(e.stdout, "%s\n", b)
		return err
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tKIND\tCLASS\tCORES\tPAPER ROWS\tDESCRIPTION")
	for _, en := range entries {
		rows := strings.Join(en.Rows, " ")
		if rows == "" {
			rows = "-"
		}
		cores := "-"
		if en.Cores > 0 {
			cores = fmt.Sprint(en.Cores)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", en.Name, en.Kind, en.Class, cores, rows, en.Desc)
	}
	return tw.Flush()
}

// listDetectors prints the detector registry.
func listDetectors(e env, asJSON bool) error {
	type entry struct {
		Name    string   `json:"name"`
		Kinds   []string `json:"kinds"`
		Learns  bool     `json:"learns"`
		Summary string   `json:"summary"`
	}
	var out []entry
	for _, d := range detectors.All() {
		out = append(out, entry{Name: d.Name, Kinds: d.Kinds.Names(), Learns: d.Learn != nil, Summary: d.Summary})
	}
	if asJSON {
		b, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return fmt.Errorf("encode detector list: %w", err)
		}
		_, err = fmt.Fprintf(e.stdout, "%s\n", b)
		return err
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tLEARNS\tDESCRIPTION")
	for _, d := range out {
		learns := "-"
		if d.Learns {
			learns = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", d.Name, learns, d.Summary)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, "\nkinds each needs: weft list --detectors --json")
	return nil
}
