package all

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"weft/experiments"
	"weft/results"
)

func TestEveryExperimentWritesItsReport(t *testing.T) {
	for _, e := range List() {
		t.Run(e.Name, func(t *testing.T) {
			r, err := e.Run(experiments.Env{Quick: true, Seeds: 2})
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			path, err := experiments.Write(r, dir, "")
			if err != nil {
				t.Fatal(err)
			}
			if path != filepath.Join(dir, e.Name+".md") {
				t.Errorf("report at %s", path)
			}
			md, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"# " + r.Title, "## How this was run", "Seeds:", "```toml", r.Command} {
				if !strings.Contains(string(md), want) {
					t.Errorf("%s.md lacks %q", e.Name, want)
				}
			}
			tables, plots := 0, 0
			for _, s := range r.Sections {
				for _, tb := range s.Tables {
					tables++
					f, err := os.Open(filepath.Join(dir, e.Name, tb.Name+".csv"))
					if err != nil {
						t.Fatal(err)
					}
					back, err := results.ReadCSV(tb.Name, f)
					f.Close()
					if err != nil {
						t.Fatal(err)
					}
					if strings.Join(back.Columns, ",") != strings.Join(tb.Columns, ",") || len(back.Rows) != len(tb.Rows) || len(tb.Rows) == 0 {
						t.Errorf("%s.csv: header %v, %d rows; want %v, %d rows", tb.Name, back.Columns, len(back.Rows), tb.Columns, len(tb.Rows))
					}
				}
				for _, p := range s.Plots {
					plots++
					raw, err := os.ReadFile(filepath.Join(dir, e.Name, p.Name+".png"))
					if err != nil {
						t.Fatal(err)
					}
					if img, err := png.Decode(bytes.NewReader(raw)); err != nil || img.Bounds().Dx() < 200 {
						t.Errorf("%s.png: %v", p.Name, err)
					}
					if _, err := os.Stat(filepath.Join(dir, e.Name, p.Name+".svg")); err != nil {
						t.Error(err)
					}
					if !strings.Contains(string(md), "("+e.Name+"/"+p.Name+".png)") {
						t.Errorf("report does not show %s", p.Name)
					}
				}
			}
			if tables == 0 {
				t.Error("no tables")
			}
			if e.Name != "default" && plots == 0 {
				t.Error("no plots")
			}
		})
	}
}

func TestResultsIndependentOfWorkers(t *testing.T) {
	e, err := Lookup("machine-scaling")
	if err != nil {
		t.Fatal(err)
	}
	var csvs []string
	for _, w := range []int{1, 3} {
		r, err := e.Run(experiments.Env{Quick: true, Seeds: 2, Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := r.Sections[0].Tables[0].WriteCSV(&b); err != nil {
			t.Fatal(err)
		}
		csvs = append(csvs, b.String())
	}
	if csvs[0] != csvs[1] {
		t.Errorf("worker count changed the results:\n%s\n%s", csvs[0], csvs[1])
	}
}

func TestLookupUnknown(t *testing.T) {
	if _, err := Lookup("nope"); err == nil || !strings.Contains(err.Error(), "machine-scaling") {
		t.Errorf("error %v does not list the known experiments", err)
	}
}
