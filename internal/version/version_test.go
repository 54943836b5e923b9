package version

import (
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	for _, c := range []struct {
		in   Info
		want string
	}{
		{Info{Version: "(devel)"}, "(devel)"},
		{Info{Version: "v1.2.0"}, "v1.2.0"},
		{Info{Version: "(devel)", Revision: "9a26d1716d8230e41f805b37003bb1899eaddb10"}, "(devel) 9a26d1716d82"},
		{Info{Version: "(devel)", Revision: "9a26d1716d8230e41f805b37003bb1899eaddb10", Modified: true}, "(devel) 9a26d1716d82+dirty"},
		{Info{Version: "v0.0.0-20260101120000-9a26d1716d82+dirty", Revision: "9a26d1716d8230e41f805b37003bb1899eaddb10", Modified: true},
			"v0.0.0-20260101120000-9a26d1716d82+dirty"},
	} {
		if got := c.in.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.in, got, c.want)
		}
	}
}

func TestGet(t *testing.T) {
	in := Get()
	if in.Version == "" || !strings.HasPrefix(in.Go, "go") {
		t.Errorf("Get() = %+v", in)
	}
	if String() != in.String() || String() != Get().String() {
		t.Error("String is not constant")
	}
}
