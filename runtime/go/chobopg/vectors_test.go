package chobopg

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

// TestVectorConstants holds the retry figures and SQLSTATEs of the file
// every runtime replays (written by chobo's tests) to this package's.
func TestVectorConstants(t *testing.T) {
	data, err := os.ReadFile("../../testdata/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Postgres struct {
			MaxAttempts int               `json:"max_attempts"`
			BackoffMs   []int64           `json:"backoff_ms"`
			SQLStates   map[string]string `json:"sqlstates"`
			Retryable   []string          `json:"retryable"`
		} `json:"postgres"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	p := v.Postgres
	if p.MaxAttempts != MaxAttempts {
		t.Errorf("the file has %d attempts, the runtime %d", p.MaxAttempts, MaxAttempts)
	}
	if len(p.BackoffMs) < 8 {
		t.Fatalf("the file has %d waits", len(p.BackoffMs))
	}
	for n, ms := range p.BackoffMs {
		if got := Backoff(n).Milliseconds(); got != ms {
			t.Errorf("Backoff(%d) is %d ms, the file says %d", n, got, ms)
		}
	}
	want := map[string]string{
		"serialization_failure": SerializationFailure, "deadlock_detected": DeadlockDetected,
		"in_failed_transaction": InFailedTransaction, "bounds_changed": BoundsChanged,
	}
	if !reflect.DeepEqual(p.SQLStates, want) {
		t.Errorf("the file's SQLSTATEs %v, the runtime's %v", p.SQLStates, want)
	}
	var retryable []string
	for _, code := range p.SQLStates {
		if Retryable(code) {
			retryable = append(retryable, code)
		}
	}
	if len(retryable) != len(p.Retryable) {
		t.Errorf("the runtime retries %v, the file %v", retryable, p.Retryable)
	}
	for _, code := range p.Retryable {
		if !Retryable(code) {
			t.Errorf("the file retries %s, the runtime does not", code)
		}
	}
}
