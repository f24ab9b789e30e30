package conformance

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chobo-lang/chobo/chobo/book"
	"github.com/chobo-lang/chobo/chobo/scenario"
)

// Job is one scenario to run on one backend.
type Job struct {
	Where    string     // names the book in messages
	Book     *book.Book // the test copy the reference runs on
	Scenario scenario.Scenario
	Backend  Backend
	Tenant   string // the scenario's tenant; a second try adds "-again"
}

// Stats counts what RunAll ran.
type Stats struct {
	Total    int // scenarios run
	Together int // of them, with a together
	Again    int // run a second time because a step came late
}

// RunAll runs the jobs, eight at a time, and reports through t every run
// that is not one of the interpreter's outcomes. A run that differed
// because a step came after a hold's deadline (a slow machine) gets one
// more try, on a tenant of its own; late again, it fails.
func RunAll(t testing.TB, jobs []Job) Stats {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var stats Stats
	sem := make(chan struct{}, 8)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			refs := scenario.Run(j.Book, j.Scenario)
			tenant := j.Tenant
			for attempt := 1; ; attempt++ {
				got, late, err := Run(ctx, j.Backend, j.Scenario, tenant)
				if err != nil {
					t.Errorf("%s %q: %v", j.Where, j.Scenario.Name, err)
					return
				}
				if Matches(got, refs) {
					break
				}
				if late && attempt == 1 {
					mu.Lock()
					stats.Again++
					mu.Unlock()
					t.Logf("run again: %s %q (a step came after a deadline)", j.Where, j.Scenario.Name)
					tenant = j.Tenant + "-again"
					continue
				}
				var want []string
				for _, r := range refs {
					want = append(want, FromOutcome(r).String())
				}
				word := ""
				if late {
					word = " (late again)"
				}
				t.Errorf("%s %q differs from the interpreter%s:\n got  %s\n want one of:\n  %s",
					j.Where, j.Scenario.Name, word, got, strings.Join(want, "\n  "))
				break
			}
			mu.Lock()
			defer mu.Unlock()
			stats.Total++
			for _, st := range j.Scenario.Steps {
				if st.Together != nil {
					stats.Together++
					break
				}
			}
		}()
	}
	wg.Wait()
	return stats
}
