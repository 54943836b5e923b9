// Package results holds what runs turn into: tables (one Table type written
// as CSV, Markdown and JSON, and read back from CSV and JSON), aggregation
// over seeds and workloads (Summarize, GeoMean, Normalize), plots (bar,
// grouped bar, stacked bar, line with error bars, box, heat map; PNG and
// SVG), and the papers' own tables as embedded reference data (Reference,
// SideBySide), so a reproduced table can be printed beside the paper's
// numbers. Files are written whole or not at all (Table.Save and the plots
// write through internal/atomicfile), and numbers follow internal/numfmt's
// one rule; outcomes are coloured by the names core gives them. Those
// three are the only parts of weft it imports.
package results
