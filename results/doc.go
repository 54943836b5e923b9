// Package results holds what runs turn into: tables (one Table type written
// as CSV, Markdown and JSON, and read back from CSV and JSON), aggregation
// over seeds and workloads (Summarize, GeoMean, Normalize), plots (bar,
// grouped bar, stacked bar, line with error bars, box; PNG and SVG), and the
// papers' own tables as embedded reference data (Reference, SideBySide), so
// a reproduced table can be printed beside the paper's numbers. Files are
// written whole or not at all (WriteAtomic). It imports nothing from weft.
package results
