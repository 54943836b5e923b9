package configs

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// Set applies one `--set key=value` override, such as
// "cache.l1.size_bytes=65536" or "sim.seed=7". The value is parsed as a TOML
// value. An unknown key, a missing "=" or value, bad TOML or a wrong type is
// an error naming the key, and leaves c unchanged. Set does not range-check:
// call Validate after the last override.
func (c *Config) Set(assignment string) error {
	k, val, ok := strings.Cut(assignment, "=")
	if !ok {
		return fmt.Errorf("set %q: expected key=value, e.g. cache.l1.size_bytes=65536", assignment)
	}
	key, val := strings.TrimSpace(k), strings.TrimSpace(val)
	if key == "" {
		return fmt.Errorf("set %q: missing key before \"=\"", assignment)
	}
	fail := func(msg string, err error) error {
		return fmt.Errorf("set %q: %w", assignment, &Error{Key: key, Msg: msg, Err: err})
	}
	root := reflect.TypeFor[Config]()
	field, ok, table := lookup(reflect.ValueOf(*c), key)
	if !ok {
		return fail(keyMsg(root, key, table), nil)
	}
	if val == "" {
		return fail(`missing value after "="`, nil)
	}
	doc, err := parseDoc("", key+" = "+val+"\n")
	if err != nil {
		var ce *Error
		hint := ""
		if field.Kind() == reflect.String && !strings.HasPrefix(val, `"`) && !strings.HasPrefix(val, "'") {
			hint = fmt.Sprintf("; %s is a string: quote it, as in --set '%s=\"%s\"'", key, key, val)
		}
		if errors.As(err, &ce) {
			return fail(fmt.Sprintf("invalid value %s (%s)%s", val, strings.TrimPrefix(ce.Msg, "invalid TOML: "), hint), err)
		}
		return fail("invalid value "+val+hint, err)
	}
	// A value holding a newline could define other keys: allow only key itself,
	// its tables, and (to report them as a wrong type) keys inside it.
	for _, dk := range doc.md.Keys() {
		d := dk.String()
		if d != key && !strings.HasPrefix(key, d+".") && !strings.HasPrefix(d, key+".") {
			return fail(fmt.Sprintf("invalid value %q: not a single TOML value (it sets %s too)", val, d), nil)
		}
	}
	next := *c
	if err := doc.apply(&next); err != nil {
		var ce *Error
		if errors.As(err, &ce) {
			return fail(ce.Msg, err) // the line of a one-line document says nothing
		}
		return fail(err.Error(), err)
	}
	*c = next
	return nil
}
