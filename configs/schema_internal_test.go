package configs

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

// Later tables will hold booleans, floats and strings; the schema machinery
// handles them already.
type future struct {
	Top   Sim `toml:"top"`
	Table struct {
		On     bool    `toml:"on"`
		Ratio  float64 `toml:"ratio"`
		Whole  float64 `toml:"whole"`
		Name   string  `toml:"name"`
		Small  int8    `toml:"small"`
		Hidden int     // not in the schema: no tag
	} `toml:"table"`
}

func TestOtherValueKinds(t *testing.T) {
	var in future
	in.Top.Seed = 5
	in.Table.On = true
	in.Table.Ratio = 0.1
	in.Table.Whole = 3
	in.Table.Name = "a \"quoted\"\tname\x01é"
	in.Table.Small = -7

	var b strings.Builder
	writeTable(&b, nil, reflect.ValueOf(in))
	doc, err := parseDoc("f.toml", b.String())
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	var out future
	if err := doc.apply(&out); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if out != in {
		t.Errorf("round trip = %+v\nwant %+v\n%s", out, in, b.String())
	}
	// Sim's keys, then the table's five.
	if got := keysOf(reflect.TypeFor[future]()); len(got) != len(keysOf(reflect.TypeFor[Sim]()))+5 {
		t.Errorf("keys = %v", got)
	}

	for text, want := range map[string]string{
		"table.small = 200\n":   "f.toml:1: table.small: 200 is out of range for a 8-bit integer",
		"table.on = 1\n":        "f.toml:1: table.on: wrong type: expected true or false",
		"table.name = 1\n":      "f.toml:1: table.name: wrong type: expected a string",
		"table.ratio = \"x\"\n": "f.toml:1: table.ratio: wrong type: expected a number",
		"table.Hidden = 1\n":    "f.toml:1: table.Hidden: unknown key",
	} {
		doc, err := parseDoc("f.toml", text)
		if err != nil {
			t.Fatal(err)
		}
		var out future
		if err := doc.apply(&out); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", text, err, want)
		}
	}

	for f, want := range map[float64]string{1: "1.0", 0.5: "0.5", 1e300: "1e+300",
		math.Inf(1): "inf", math.Inf(-1): "-inf", math.NaN(): "nan"} {
		if got := formatFloat(f, 64); got != want {
			t.Errorf("formatFloat(%v) = %s, want %s", f, got, want)
		}
	}
}
