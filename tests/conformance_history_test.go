package tests

import (
	"testing"

	"github.com/chobo-lang/chobo/chobo/conformance"
)

// TestClientReadsTheHistory runs the scenarios of the history cases, read
// steps and all, through the PostgreSQL Go client driven as a process,
// as the conformance runner drives every client: each read goes through
// the driver protocol and must read what the interpreter reads on the
// book as written, times mapped through the run's marks. The other
// clients' reads go through TestClientConformance, which runs these
// cases among the others.
func TestClientReadsTheHistory(t *testing.T) {
	const tg = "postgres-go"
	var books []loaded
	for _, name := range []string{"history", "history_ja"} {
		books = append(books, loadForBackends(t, caseByName(t, name)))
	}
	driversOf(t, tg) // skips here, before a server starts, when Go clients cannot be built
	d := startPostgres(t, books)
	jobs := jobsOf(books, tg, false, func(l loaded) conformance.Backend { return startPostgresClient(t, tg, d, l) })
	st := conformance.RunAll(t, jobs)
	if st.Reads == 0 || st.ReadsSkipped > 0 {
		t.Errorf("%d reads of the history compared and %d not; want them all compared", st.Reads, st.ReadsSkipped)
	}
	t.Logf("%d scenarios of the history cases through %s, %d reads of the history compared with the interpreter's", st.Total, tg, st.Reads)
}
