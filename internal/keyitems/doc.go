// Package keyitems reads what a chat's statements state that a summary
// should keep: its sentences and clauses (SplitSentences, SplitLong,
// CleanLine), the specific items of each (Features: identifiers, numbers
// with their units, dates and times, names, quoted titles, spans in bold),
// the kind of statement it makes (Cues: constraints, decisions,
// corrections...) and the values a correction says are no longer true
// (Replaced). The cue words cover English, French, German, Spanish,
// Italian, Portuguese and Japanese, and a few of them 21 more languages
// (cues_more.go); months, weekdays, units of time and currencies, some 30
// languages (calendar.go); identifiers and numbers are read alike in every
// language.
//
// The extractive summarizer picks sentences by what they state; recap's
// summary check compares a summary's items with its input's. Both read
// texts through this package, so that they agree on what an item is.
package keyitems
