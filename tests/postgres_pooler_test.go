package tests

import (
	"testing"

	"github.com/chobo-lang/chobo/chobo/conformance"
	"github.com/chobo-lang/chobo/chobo/conformance/driverkit"
	"github.com/chobo-lang/chobo/chobo/conformance/pgdeploy"
	"github.com/chobo-lang/chobo/chobo/conformance/pgtest"
	"github.com/chobo-lang/chobo/chobo/conformance/protocol"
)

// Behind a connection pooler (PgBouncer): the clients on a real server
// reached through PgBouncer in transaction and in session mode, where a
// server connection runs the transactions of many client connections in
// turn and keeps whatever they left on it.

// poolerCases are the books whose scenarios TestClientsBehindPooler runs:
// inventory has every kind of call (do, hold, post in full and in part,
// void, status) with the same argument types across its operations, which
// is where a statement run in place of another would go unseen by type. A
// subset, so that four clients in two pool modes stay short on CI's two
// cores; TestClientConformance runs every case without a pooler.
var poolerCases = []string{"inventory"}

// TestClientsBehindPooler runs the scenarios of poolerCases through each
// PostgreSQL client, driven as a process as TestClientConformance drives
// it, on a server reached through PgBouncer in transaction and in session
// mode, with the bulk call where the driver takes it; every answer must be
// the interpreter's.
func TestClientsBehindPooler(t *testing.T) {
	var books []loaded
	for _, name := range poolerCases {
		books = append(books, loadForBackends(t, caseByName(t, name)))
	}
	for _, tg := range targetsOn("postgres") {
		t.Run(tg, func(t *testing.T) {
			_, lang := languageOf(t, tg)
			driversOf(t, tg)
			d := startPostgres(t, books)
			for _, mode := range []string{pgtest.TransactionPooling, pgtest.SessionPooling} {
				t.Run(mode, func(t *testing.T) {
					b := pgtest.StartBouncer(t, d.srv, mode, pgdeploy.App)
					var procs []*conformance.Process
					jobs := jobsOf(books, tg+" "+mode, driverkit.BulkOn(lang, "postgres"), func(l loaded) conformance.Backend {
						p := startClient(t, tg, l, protocol.Request{DSN: b.ConnStringAs(pgdeploy.App, pgtest.DefaultDB)},
							conformance.PostgresReader{Pool: d.admin, Book: l.Copy}, "")
						procs = append(procs, p)
						return p
					})
					// Tenants of their own per mode: both modes run on one server.
					for i := range jobs {
						jobs[i].Tenant = mode + "-" + jobs[i].Tenant
					}
					st := conformance.RunAll(t, jobs)
					if driverkit.BulkOn(lang, "postgres") {
						bulkCounts(t, procs)
					}
					t.Logf("%d scenarios through the %s client behind PgBouncer in %s mode", st.Total, tg, mode)
				})
			}
			checkEntries(t, d.admin, books)
		})
	}
}
