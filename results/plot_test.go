package results

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStackedBarWritesPNGAndSVG(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "outcomes")
	err := StackedBar("outcomes", "share of runs", []string{"a", "b", "c"},
		[]Series{{"pass", []float64{1, 0.5, 0.2}}, {"crash", []float64{0, 0.5, 0.8}}}, base)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(base + ".png")
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() < 300 || b.Dy() < 200 {
		t.Errorf("PNG is %v", b)
	}
	svg, err := os.ReadFile(base + ".svg")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(svg), "<svg") || !strings.Contains(string(svg), "crash") {
		t.Errorf("SVG lacks the svg element or the legend")
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp"))
	if len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

func TestStackedBarRejectsBadData(t *testing.T) {
	dir := t.TempDir()
	if err := StackedBar("x", "y", []string{"a"}, []Series{{"s", []float64{1, 2}}}, filepath.Join(dir, "p")); err == nil || !strings.Contains(err.Error(), `series "s" has 2 values for 1 categories`) {
		t.Errorf("mismatched series: %v", err)
	}
	if err := StackedBar("x", "y", nil, nil, filepath.Join(dir, "p")); err == nil {
		t.Error("empty plot accepted")
	}
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Errorf("bad data left files: %v", files)
	}
	if err := StackedBar("x", "y", []string{"a"}, []Series{{"s", []float64{1}}}, filepath.Join(dir, "missing", "p")); err == nil {
		t.Error("write into a missing directory succeeded")
	}
}
