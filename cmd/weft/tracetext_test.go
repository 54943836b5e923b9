package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// trace --text spells the contract's all-ones NULL as null (a drained
// edge's NULL source), never as 18446744073709551615.
func TestTraceTextNull(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.wtr")
	mustWeft(t, "trace", "-w", "mysql-binlog", "--set", "bugaboo.enabled=true", "--kind", "CTDrain,RunEnd", "-o", path)
	out, _ := mustWeft(t, "trace", "--text", path, "--kind", "CTDrain")
	if !strings.Contains(out, "edges=[null ") || strings.Contains(out, "18446744073709551615") {
		t.Errorf("CTDrain lines:\n%s", out)
	}
}
