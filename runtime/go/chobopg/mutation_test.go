package chobopg_test

import (
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/tests/langtest"
)

// The connection vectors (runtime/testdata/connection_vectors.json) are
// worth only what they catch. Each mutation below is a small change to
// this runtime's resending, retrying or bulk logic (expire's and the
// reads' among it); TestConnectionVectors, its replay of the vectors,
// must fail with it.
var mutations = []langtest.Mutation{
	{Name: "a resend that drops the call id", File: "chobopg.go",
		Old: "\t\t\tlostTries++\n\t\t\tcontinue\n",
		New: "\t\t\tlostTries++\n\t\t\targs = append(args[:len(args)-1:len(args)-1], NewCallID())\n\t\t\tcontinue\n"},
	{Name: "a resend past its deadline", File: "chobopg.go",
		Old: "|| !now().Before(until) ||", New: "||"},
	{Name: "a lost call sent again over its closed connection", File: "chobopg.go",
		Old: "|| single && c.IsClosed()", New: "|| false && single && c.IsClosed()"},
	{Name: "an error after a lost sending answered as certain", File: "chobopg.go",
		Old: "\t\t\tif lostOnce {\n\t\t\t\treturn false, lost{ErrOutcomeUnknown, classify(err)}",
		New: "\t\t\tif false {\n\t\t\t\treturn false, lost{ErrOutcomeUnknown, classify(err)}"},
	{Name: "a bulk that stops at the first refusal", File: "bulk.go",
		Old: "\t\t\tout[i] = answerOf(ops[i].Status, vals)\n",
		New: "\t\t\tout[i] = answerOf(ops[i].Status, vals)\n\t\t\tif out[i].Result.Outcome == chobo.Refused {\n\t\t\t\treturn broke(k+1, errors.New(\"stopped\"))\n\t\t\t}\n"},
	{Name: "a bulk whose lost calls are not sent again", File: "bulk.go",
		Old: "if optionsOf(q).resendFor > 0 {", New: "if false {"},
	{Name: "a bulk whose retried calls are not retried", File: "bulk.go",
		Old: "case Retryable(code) && !last:", New: "case false && Retryable(code) && !last:"},
	{Name: "an expire sent without its call id", File: "expire.go",
		Old: "[]any{max, NewCallID()}", New: "[]any{max, nil}"},
	{Name: "an expire whose lost sending is not sent again", File: "expire.go",
		Old: "err := QueryRow(ctx, q, sql,", New: "err := QueryRow(ctx, With(q, Resend(0)), sql,"},
	{Name: "a history read that is not retried", File: "history.go",
		Old: "_, err := sendWith(ctx, q, args, func(q Querier, args []any) error {",
		New: "_, err := false, func(f func(Querier, []any) error) error { return f(unwrap(q), append([]any{pgx.QueryExecModeExec}, args...)) }(func(q Querier, args []any) error {"},
	{Name: "a history read that keeps the rows of a broken sending", File: "history.go",
		Old: "func() { rows = rows[:0] },", New: "func() {},"},
	{Name: "a balance read that is not retried", File: "chobopg.go",
		Old: "err := QueryRow(ctx, q, sql, args, &b.Posted, &b.HeldIn, &b.HeldOut)",
		New: "err := unwrap(q).QueryRow(ctx, sql, append([]any{pgx.QueryExecModeExec}, args...)...).Scan(&b.Posted, &b.HeldIn, &b.HeldOut)"},
}

func TestConnectionVectorsCatchMutations(t *testing.T) {
	langtest.CatchesMutations(t, ".", mutations, langtest.GoReplay("^TestConnectionVectors$"), func(out string) bool {
		return strings.Contains(out, "--- FAIL: TestConnectionVectors/")
	})
}
