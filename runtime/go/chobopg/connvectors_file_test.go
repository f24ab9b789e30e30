package chobopg

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// connection_vectors.json is written from the cases in
// connvectors_cases_test.go: CHOBO_BLESS=1 go test ./runtime/go/chobopg
// -run 'TestConnectionVectorsFile$' rewrites it, and a file that differs
// from what they write fails that test. The figures of its constants are
// this runtime's own.

const connVectorsFile = "../../testdata/connection_vectors.json"

// vFile is the file as written: the same keys, in the same order, as
// every replay reads.
type vFile struct {
	Constants struct {
		MaxAttempts int     `json:"max_attempts"`
		BackoffMs   []int64 `json:"backoff_ms"`
		ResendForMs int64   `json:"resend_for_ms"`
	} `json:"constants"`
	Tenant string  `json:"tenant"`
	Cases  []vCase `json:"cases"`
}

type vCase struct {
	Name            string   `json:"name"`
	Over            string   `json:"over"`
	Bulk            bool     `json:"bulk,omitempty"`
	ResendForMs     *int64   `json:"resend_for_ms,omitempty"`
	Before          []string `json:"before,omitempty"`
	BeforeRefused   []string `json:"before_refused,omitempty"`
	NotLent         int      `json:"not_lent,omitempty"`
	Closed          bool     `json:"closed,omitempty"`
	CancelledBefore bool     `json:"cancelled_before,omitempty"`
	Due             int      `json:"due,omitempty"`
	Calls           []vCall  `json:"calls"`
}

type vCall struct {
	Op          string   `json:"op"`
	Key         string   `json:"key"`
	Max         int      `json:"max,omitempty"`
	Applies     string   `json:"applies,omitempty"`
	Faults      []vFault `json:"faults,omitempty"`
	ClientError bool     `json:"client_error,omitempty"`
	Want        vWant    `json:"want"`
	Sent        *int     `json:"sent,omitempty"`
	Attempts    *int     `json:"attempts,omitempty"`
}

// vFault is written as its name alone when it takes no time.
type vFault struct {
	Fault string `json:"fault"`
	Ms    int64  `json:"ms,omitempty"`
}

func (f vFault) MarshalJSON() ([]byte, error) {
	if f.Ms == 0 {
		return json.Marshal(f.Fault)
	}
	type plain vFault
	return json.Marshal(plain(f))
}

// vWant is a call's answer; a status's is its state alone (a string, or
// null for none).
type vWant struct {
	Result   string  `json:"result,omitempty"`
	Reason   string  `json:"reason,omitempty"`
	Resent   *bool   `json:"resent,omitempty"`
	Count    *int    `json:"count,omitempty"`
	Balance  []int64 `json:"balance,omitempty"`
	Entries  *int    `json:"entries,omitempty"`
	Error    string  `json:"error,omitempty"`
	SQLState string  `json:"sqlstate,omitempty"`
	OneOf    []vWant `json:"one_of,omitempty"`
	isState  bool
	state    string
}

func (w vWant) MarshalJSON() ([]byte, error) {
	if w.isState {
		if w.state == "" {
			return []byte("null"), nil
		}
		return json.Marshal(w.state)
	}
	type plain vWant
	return json.Marshal(plain(w))
}

// The helpers the cases are written with.

func num(n int) *int { return &n }

func ms(n int64) *int64 { return &n }

func faults(names ...string) []vFault {
	out := make([]vFault, len(names))
	for i, n := range names {
		out[i] = vFault{Fault: n}
	}
	return out
}

// times is n faults of one name.
func times(n int, name string) []vFault {
	out := make([]vFault, n)
	for i := range out {
		out[i] = vFault{Fault: name}
	}
	return out
}

func then(parts ...[]vFault) []vFault {
	var out []vFault
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

var (
	yes = func() *bool { b := true; return &b }()
	no  = func() *bool { b := false; return &b }()
)

func result(r string, resent *bool) vWant { return vWant{Result: r, Resent: resent} }

func refusal(reason string, resent *bool) vWant {
	return vWant{Result: "refused", Reason: reason, Resent: resent}
}

func failure(kind string) vWant { return vWant{Error: kind} }

func failureCode(kind, sqlstate string) vWant { return vWant{Error: kind, SQLState: sqlstate} }

func oneOf(w ...vWant) vWant { return vWant{OneOf: w} }

func state(s string) vWant { return vWant{isState: true, state: s} }

func count(n int) vWant { return vWant{Count: &n} }

func balance(posted, heldIn, heldOut int64) vWant {
	return vWant{Balance: []int64{posted, heldIn, heldOut}}
}

func entries(n int) vWant { return vWant{Entries: &n} }

// writeConnVectors is the file as the cases write it.
func writeConnVectors(t *testing.T) []byte {
	t.Helper()
	var f vFile
	f.Constants.MaxAttempts = MaxAttempts
	for n := range 10 {
		f.Constants.BackoffMs = append(f.Constants.BackoffMs, Backoff(n).Milliseconds())
	}
	f.Constants.ResendForMs = DefaultResendFor.Milliseconds()
	f.Tenant = "t"
	f.Cases = connVectorCases()
	seen := map[string]bool{}
	for _, c := range f.Cases {
		if seen[c.Name] {
			t.Fatalf("two cases are named %q", c.Name)
		}
		seen[c.Name] = true
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", " ")
	if err := enc.Encode(f); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestConnectionVectorsFile writes the file from the cases and finds it
// as written.
func TestConnectionVectorsFile(t *testing.T) {
	data := writeConnVectors(t)
	if os.Getenv("CHOBO_BLESS") != "" {
		if err := os.WriteFile(connVectorsFile, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	old, err := os.ReadFile(connVectorsFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(old, data) {
		t.Errorf("%s differs from what its cases write: CHOBO_BLESS=1 go test ./runtime/go/chobopg -run 'TestConnectionVectorsFile$' rewrites it", connVectorsFile)
	}
}

// slow is n faults of one name, each taking ms of the scripted clock.
func slow(n int, name string, ms int64) []vFault {
	out := times(n, name)
	for i := range out {
		out[i].Ms = ms
	}
	return out
}
