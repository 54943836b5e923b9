package sweep_test

import (
	"path/filepath"
	"testing"

	"weft/sweep"
)

// Without --out a sweep writes to its out, to the directory of a sweep
// directory's own sweep.toml (resuming it there), or to
// weft-out/sweep-NAME.
func TestDefaultDir(t *testing.T) {
	own := filepath.Join("runs", "cores", sweep.SpecFile)
	for _, c := range []struct {
		spec sweep.Spec
		want string
	}{
		{sweep.Spec{File: "cores.toml", Name: "cores", Out: "elsewhere"}, "elsewhere"},
		{sweep.Spec{File: own, Name: "cores", Base: sweep.BaseFile}, filepath.Join("runs", "cores")},
		{sweep.Spec{File: own, Name: "cores", Base: "default"}, filepath.Join("weft-out", "sweep-cores")},
		{sweep.Spec{File: "cores.toml", Name: "cores", Base: sweep.BaseFile}, filepath.Join("weft-out", "sweep-cores")},
	} {
		p := &sweep.Plan{Spec: c.spec}
		if got := p.DefaultDir(); got != c.want {
			t.Errorf("%+v: DefaultDir() = %s, want %s", c.spec, got, c.want)
		}
	}
}
