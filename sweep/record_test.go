package sweep_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"weft/sweep"
)

func TestAxisValuesJSON(t *testing.T) {
	in := sweep.AxisValues{{"b", int64(4)}, {"a", 2.0}, {"c", "x<y"}, {"d", true}, {"e", 0.25}}
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"b":4,"a":2.0,"c":"x\u003cy","d":true,"e":0.25}`; string(data) != want {
		t.Errorf("marshal = %s, want %s", data, want)
	}
	var out sweep.AxisValues
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out, in) {
		t.Errorf("round trip: %#v, want %#v", out, in)
	}
}
