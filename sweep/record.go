package sweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"weft/configs"
	"weft/sim"
)

// AxisValue is the value of one axis at a sweep point.
type AxisValue struct {
	// Key is the axis's dotted config key.
	Key string
	// Value is the axis's value: int64, float64, string or bool.
	Value any
}

// AxisValues are a point's axis values in the sweep file's axis order. They
// are written as one JSON object in that order.
type AxisValues []AxisValue

// String writes the values as "key=value, key=value".
func (a AxisValues) String() string {
	parts := make([]string, len(a))
	for i, v := range a {
		parts[i] = v.Key + "=" + configs.FormatValue(v.Value)
	}
	return strings.Join(parts, ", ")
}

// Get returns the value of the axis key.
func (a AxisValues) Get(key string) (any, bool) {
	for _, v := range a {
		if v.Key == key {
			return v.Value, true
		}
	}
	return nil, false
}

// MarshalJSON writes the values as a JSON object in axis order. Floats keep
// a decimal point or exponent, so they read back as floats.
func (a AxisValues) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, v := range a {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(v.Key))
		b.WriteByte(':')
		switch x := v.Value.(type) {
		case int64, bool:
			b.WriteString(configs.FormatValue(x))
		case float64:
			s := configs.FormatValue(x)
			if s == "nan" || strings.HasSuffix(s, "inf") {
				return nil, fmt.Errorf("axis %s: %s is not a JSON number", v.Key, s)
			}
			b.WriteString(s)
		case string:
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(x); err != nil {
				return nil, err
			}
			b.Truncate(b.Len() - 1) // Encode's newline
		default:
			return nil, fmt.Errorf("axis %s: unsupported value %v (%T)", v.Key, x, x)
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads an axis object, keeping its key order. Numbers with
// a decimal point or exponent become float64, others int64.
func (a *AxisValues) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return errors.New("axes: want a JSON object")
	}
	var out AxisValues
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("axes: %w", err)
		}
		key, _ := tok.(string)
		tok, err = dec.Token()
		if err != nil {
			return fmt.Errorf("axes: %s: %w", key, err)
		}
		var v any
		switch x := tok.(type) {
		case json.Number:
			if strings.ContainsAny(x.String(), ".eE") {
				f, err := x.Float64()
				if err != nil {
					return fmt.Errorf("axes: %s: %w", key, err)
				}
				v = f
			} else {
				n, err := x.Int64()
				if err != nil {
					return fmt.Errorf("axes: %s: %w", key, err)
				}
				v = n
			}
		case string, bool:
			v = x
		default:
			return fmt.Errorf("axes: %s: want a number, string or boolean", key)
		}
		out = append(out, AxisValue{Key: key, Value: v})
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("axes: %w", err)
	}
	*a = out
	return nil
}

// Record is one line of a sweep's runs.jsonl: the run's Result with its
// point, run index and axis values in front. Its workload is the sweep
// workload's label (Workload.Label).
type Record struct {
	// Point is the point's index (Point.Index).
	Point int `json:"point"`
	// Run is the run's index within the point; it ran with seed
	// Spec.Seed + Run.
	Run int `json:"run"`
	// Axes are the point's axis values.
	Axes AxisValues `json:"axes"`
	// Result is the run's record.
	sim.Result
}

// encodeRun writes r as one JSON line, the same bytes for equal runs.
func encodeRun(r *Record) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, fmt.Errorf("encode point %d run %d: %w", r.Point, r.Run, err)
	}
	return buf.Bytes(), nil
}
