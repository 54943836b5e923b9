package configs

import (
	"crypto/sha256"
	"encoding/hex"
	"reflect"
	"strings"
)

// TOML returns the fully resolved config as a TOML document: every key,
// tables and keys in declaration order, no comments. Load and Parse read it
// back to an equal Config, and Hash is computed from it (without sim.seed).
func (c Config) TOML() string {
	var b strings.Builder
	writeTable(&b, nil, reflect.ValueOf(c))
	return b.String()
}

// writeTable writes the values of table v under a [path] header, then its
// sub-tables.
func writeTable(b *strings.Builder, path []string, v reflect.Value) {
	var subs []field
	header := false
	for _, f := range tableFields(v.Type()) {
		fv := v.Field(f.index)
		if fv.Kind() == reflect.Struct {
			subs = append(subs, f)
			continue
		}
		if !header && len(path) > 0 {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString("[" + strings.Join(path, ".") + "]\n")
		}
		header = true
		b.WriteString(f.name + " = " + formatValue(fv) + "\n")
	}
	for _, f := range subs {
		writeTable(b, append(path[:len(path):len(path)], f.name), v.Field(f.index))
	}
}

// Hash identifies the machine configuration: the first 16 hex digits of the
// SHA-256 of TOML with sim.seed set to 0. sim.seed is excluded because every
// run records its own seed, so run i of a batch has the hash of a single
// run with seed+i. Configs that differ only in sim.seed have equal hashes;
// a change to any other key changes the hash.
func (c Config) Hash() string {
	c.Sim.Seed = 0
	sum := sha256.Sum256([]byte(c.TOML()))
	return hex.EncodeToString(sum[:])[:16]
}
