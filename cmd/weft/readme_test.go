package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The README gets a newcomer going: a quick start of exactly two commands,
// how to build the weft binary every later command uses, the Go version
// go.mod asks for and the first build's wait; and no document points at
// paper notes the repository does not hold.
func TestReadmeForNewcomers(t *testing.T) {
	readme := string(fileBytes(t, "../../README.md"))
	quick := regexp.MustCompile("(?s)## Quick start\n\n```sh\n(.*?)```").FindStringSubmatch(readme)
	if quick == nil {
		t.Fatal("no quick start block")
	}
	var cmds []string
	for _, l := range strings.Split(strings.TrimSpace(quick[1]), "\n") {
		cmd, _, _ := strings.Cut(l, "#")
		cmds = append(cmds, strings.TrimSpace(cmd))
	}
	if strings.Join(cmds, "; ") != "go run ./cmd/weft; go test ./..." {
		t.Errorf("quick start is %q, want exactly go run ./cmd/weft and go test ./...", cmds)
	}
	goVersion := regexp.MustCompile(`(?m)^go (\S+)$`).FindStringSubmatch(string(fileBytes(t, "../../go.mod")))
	for _, want := range []string{"go build -o weft ./cmd/weft", "go install ./cmd/weft", "weft version",
		"Go " + goVersion[1], "about a minute"} {
		if !strings.Contains(readme, want) {
			t.Errorf("README does not say %q", want)
		}
	}
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "weft-out") {
			return filepath.SkipDir
		}
		switch filepath.Ext(path) {
		case ".md", ".go", ".toml", ".s":
		default:
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, bad := range []string{"papers/", "/work/shared", "-digest.md"} {
			if strings.Contains(string(data), bad) && !strings.HasSuffix(path, "readme_test.go") {
				t.Errorf("%s points at %q, which is not in the repository", path, bad)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
