package experiments

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"weft/internal/atomicfile"
	"weft/internal/version"
	"weft/results"
)

// Write writes the report as dir/stem.md with its tables (CSV, Markdown and
// JSON) and figures (PNG, SVG and the data as CSV) under dir/stem/. stem is
// the report's name unless given. It returns the Markdown file's path.
// Every file is written whole or not at all.
func Write(r *Report, dir, stem string) (string, error) {
	if stem == "" {
		stem = r.Name
	}
	sub := filepath.Join(dir, stem)
	if err := os.MkdirAll(sub, 0o755); err != nil {
		return "", fmt.Errorf("report %s: %w", r.Name, err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", r.Title)
	if r.Intro != "" {
		b.WriteString(strings.TrimSpace(r.Intro) + "\n\n")
	}
	for _, s := range r.Sections {
		if s.Heading != "" {
			fmt.Fprintf(&b, "## %s\n\n", s.Heading)
		}
		if s.Text != "" {
			b.WriteString(strings.TrimSpace(s.Text) + "\n\n")
		}
		for _, t := range s.Tables {
			if err := withVersion(t).Save(sub); err != nil {
				return "", fmt.Errorf("report %s: table %s: %w", r.Name, t.Name, err)
			}
			var md strings.Builder
			if err := t.WriteMarkdown(&md); err != nil {
				return "", fmt.Errorf("report %s: table %s: %w", r.Name, t.Name, err)
			}
			b.WriteString(md.String())
			fmt.Fprintf(&b, "\n(data: [%s/%s.csv](%s/%s.csv))\n\n", stem, t.Name, stem, t.Name)
		}
		for _, p := range s.Plots {
			if err := p.Draw(filepath.Join(sub, p.Name)); err != nil {
				return "", fmt.Errorf("report %s: figure %s: %w", r.Name, p.Name, err)
			}
			if p.Data != nil {
				if err := withVersion(p.Data).Save(sub); err != nil {
					return "", fmt.Errorf("report %s: figure %s data: %w", r.Name, p.Name, err)
				}
			}
			fmt.Fprintf(&b, "![%s](%s/%s.png)\n\n", p.Caption, stem, p.Name)
			if p.Caption != "" {
				fmt.Fprintf(&b, "*%s*", p.Caption)
				if p.Data != nil {
					fmt.Fprintf(&b, " (data: [%s/%s.csv](%s/%s.csv))", stem, p.Data.Name, stem, p.Data.Name)
				}
				b.WriteString("\n\n")
			}
		}
		if s.Comment != "" {
			b.WriteString("**Differences.** " + strings.TrimSpace(s.Comment) + "\n\n")
		}
	}
	b.WriteString("## How this was run\n\n")
	if r.Command != "" {
		fmt.Fprintf(&b, "```sh\n%s\n```\n\n", r.Command)
	}
	if r.Seeds != "" {
		fmt.Fprintf(&b, "Seeds: %s.\n\n", r.Seeds)
	}
	fmt.Fprintf(&b, "Made by weft %s (`weft version`).\n\n", version.String())
	for _, c := range r.Configs {
		fmt.Fprintf(&b, "Config `%s` (hash `%s`):\n\n```toml\n%s```\n\n", c.Name, c.Config.Hash(), c.Config.TOML())
	}
	path := filepath.Join(dir, stem+".md")
	if err := atomicfile.WriteFile(path, []byte(b.String())); err != nil {
		return "", fmt.Errorf("report %s: %w", r.Name, err)
	}
	return path, nil
}

// withVersion returns a copy of t whose notes end with the weft version
// that made it, so the saved JSON and Markdown name it.
func withVersion(t *results.Table) *results.Table {
	c := t.Clone()
	c.Notes = append(c.Notes, "Made by weft "+version.String()+".")
	return c
}
