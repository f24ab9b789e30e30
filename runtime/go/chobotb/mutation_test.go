package chobotb_test

import (
	"strings"
	"testing"

	"github.com/chobo-lang/chobo/tests/langtest"
)

// The TigerBeetle bulk vectors (runtime/testdata/tb_bulk_vectors.json)
// are worth only what they catch, as the connection vectors are
// (runtime/go/chobopg/mutation_test.go): each mutation below is a small
// change to this runtime's bulk call, and TestBulkVectors, its replay of
// the vectors, must fail with it.
var mutations = []langtest.Mutation{
	{Name: "a request packed past MaxEvents", File: "bulk.go",
		Old: "if len(batch)+len(chain) > most {", New: "if len(batch)+len(chain) > most+5 {"},
	{Name: "every chain a request of its own", File: "bulk.go",
		Old: "if len(batch)+len(chain) > most {", New: "if len(batch) > 0 && most > 0 {"},
	{Name: "a failed request whose error is dropped", File: "bulk.go",
		Old: "\t\t\t\terrs[i] = err\n", New: "\t\t\t\t_ = err\n"},
	{Name: "statuses read from the wrong place", File: "bulk.go",
		Old: "statuses[i] = st[at : at+n]", New: "statuses[i] = st[:n]"},
	{Name: "a failed accounts request that stops every call", File: "bulk.go",
		Old: "\t\tfor _, i := range r.planned {\n\t\t\tr.out[i].Err, r.chains[i] = err, nil\n\t\t}\n",
		New: "\t\treturn nil, err\n"},
	{Name: "a hold id looked up as often as it is named", File: "bulk.go",
		Old: "\t\t\tif !asked[id] {\n", New: "\t\t\tif true {\n"},
	{Name: "a post over its hold sent as a post", File: "bulk.go",
		Old: "\t\tif over {\n", New: "\t\tif over && false {\n"},
	{Name: "a chain laid out otherwise read as it is", File: "bulk.go",
		Old: "if laidOutOtherwise(chain, statuses[i]) {", New: "if false {"},
	{Name: "the chains of an earlier version sent together", File: "bulk.go",
		Old: "statuses, errs := b.sendChains(ctx, chains[n:n+1], r.events)", New: "statuses, errs := b.sendChains(ctx, append(chains[n:n+1:n+1], chains[n+1:]...), r.events)"},
}

func TestBulkVectorsCatchMutations(t *testing.T) {
	langtest.CatchesMutations(t, ".", mutations, langtest.GoReplay("^TestBulkVectors$"), func(out string) bool {
		return strings.Contains(out, "--- FAIL: TestBulkVectors/")
	})
}
