package chobopg

import "slices"

// The cases of connection_vectors.json (connvectors_file_test.go writes
// the file from them; runtime/testdata/README.md says what each key means).

func connVectorCases() []vCase {
	return slices.Concat(callCases(), expireCases(), readCases())
}

// callCases are the operations': retries, resending with the call id,
// bulks.
func callCases() []vCase {
	return []vCase{
		{
			Name: "done at once", Over: "pool",
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "done", Want: result("done", no), Sent: num(1), Attempts: num(1)},
			},
		},
		{
			Name: "refused at once", Over: "pool",
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "refused:too_much", Want: refusal("too_much", no), Sent: num(1), Attempts: num(1)},
			},
		},
		{
			Name: "a key done by another call", Over: "pool", Before: []string{"k0"},
			Calls: []vCall{
				{Op: "call", Key: "k0", Applies: "done", Want: result("done_before", no), Sent: num(1), Attempts: num(1)},
			},
		},
		{
			Name: "a key refused for another call", Over: "pool", BeforeRefused: []string{"r0"},
			Calls: []vCall{
				{Op: "call", Key: "r0", Applies: "refused:too_much", Want: refusal("already_refused", no), Sent: num(1), Attempts: num(1)},
			},
		},
		{
			Name: "serialization failures, then done", Over: "pool",
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "done", Faults: faults("serialization_failure", "serialization_failure"), Want: result("done", no), Sent: num(3), Attempts: num(3)},
			},
		},
		{
			Name: "a deadlock, then refused", Over: "pool",
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "refused:too_much", Faults: faults("deadlock_detected"), Want: refusal("too_much", no), Sent: num(2), Attempts: num(2)},
			},
		},
		{
			Name: "serialization failures until the attempts run out", Over: "pool",
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "done", Faults: times(30, "serialization_failure"), Want: failureCode("server", "40001"), Sent: num(30), Attempts: num(30)},
			},
		},
		{
			Name: "a malformed call", Over: "pool",
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "error:22023", Want: failureCode("bad_call", "22023"), Sent: num(1), Attempts: num(1)},
			},
		},
		{
			Name: "an account with other bounds", Over: "pool",
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "error:CB001", Want: failureCode("bounds_changed", "CB001"), Sent: num(1), Attempts: num(1)},
			},
		},
		{
			Name: "another error of the server is not sent again", Over: "pool",
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "error:23505", Want: failureCode("server", "23505"), Sent: num(1), Attempts: num(1)},
			},
		},
		{
			Name: "a statement cancelled by the server is an answer", Over: "pool",
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "error:57014", Want: failureCode("server", "57014"), Sent: num(1), Attempts: num(1)},
			},
		},
		{
			Name: "lost before commit, then applied by the second sending", Over: "pool",
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "done", Faults: faults("lost_before_commit"), Want: result("done", yes), Sent: num(2), Attempts: num(2)},
			},
		},
		{
			Name: "lost after commit: the second sending answers the first's answer", Over: "pool",
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "done", Faults: faults("lost_after_commit"), Want: result("done", yes), Sent: num(2), Attempts: num(2)},
			},
		},
		{
			Name: "lost after a refusal was committed: the same refusal, not already_refused", Over: "pool",
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "refused:too_much", Faults: faults("lost_after_commit"), Want: refusal("too_much", yes), Sent: num(2), Attempts: num(2)},
			},
		},
		{
			Name: "the server shut down after commit", Over: "pool",
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "done", Faults: faults("shutdown_after_commit"), Want: result("done", yes), Sent: num(2), Attempts: num(2)},
			},
		},
		{
			Name: "lost after commit twice", Over: "pool",
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "done", Faults: faults("lost_after_commit", "lost_after_commit"), Want: result("done", yes), Sent: num(3), Attempts: num(3)},
			},
		},
		{
			Name: "no connection lent, then done: not marked resent", Over: "pool",
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "done", Faults: faults("not_connected"), Want: result("done", no), Sent: num(1), Attempts: num(2)},
			},
		},
		{
			Name: "lost, then no connection lent, then answered", Over: "pool",
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "done", Faults: faults("lost_after_commit", "not_connected"), Want: result("done", yes), Sent: num(2), Attempts: num(3)},
			},
		},
		{
			Name: "lost, then no connection lent until the resending ends", Over: "pool",
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "done", Faults: then(faults("lost_before_commit"), slow(3, "not_connected", 10000)), Want: failure("outcome_unknown"), Sent: num(1), Attempts: num(4)},
			},
		},
		{
			Name: "no connection lent until the resending ends", Over: "pool",
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "done", Faults: slow(3, "not_connected", 10000), Want: failure("not_sent"), Sent: num(0), Attempts: num(3)},
			},
		},
		{
			Name: "lost, then an error of the server: still unknown", Over: "pool",
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "error:23505", Faults: faults("lost_before_commit"), Want: failure("outcome_unknown"), Sent: num(2), Attempts: num(2)},
			},
		},
		{
			Name: "lost, then serialization failures until the attempts run out: still unknown", Over: "pool",
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "done", Faults: then(faults("lost_before_commit"), times(29, "serialization_failure")), Want: failure("outcome_unknown"), Sent: num(30), Attempts: num(30)},
			},
		},
		{
			Name: "resending off: lost is answered at once", Over: "pool", ResendForMs: ms(0),
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "done", Faults: faults("lost_after_commit"), Want: failure("outcome_unknown"), Sent: num(1), Attempts: num(1)},
			},
		},
		{
			Name: "resending off: no connection lent is answered at once", Over: "pool", ResendForMs: ms(0),
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "done", Faults: faults("not_connected"), Want: failure("not_sent"), Sent: num(0), Attempts: num(1)},
			},
		},
		{
			Name: "resending off: lost, and the call was applied", Over: "pool", ResendForMs: ms(0),
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "done", Faults: faults("lost_after_commit"), Want: failure("outcome_unknown"), Sent: num(1), Attempts: num(1)},
				{Op: "call", Key: "a", Applies: "done", Want: result("done_before", no), Sent: num(1), Attempts: num(1)},
			},
		},
		{
			Name: "one connection: a serialization failure is sent again", Over: "conn",
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "done", Faults: faults("serialization_failure"), Want: result("done", no), Sent: num(2), Attempts: num(2)},
			},
		},
		{
			Name: "one connection: lost is answered at once, the connection closed", Over: "conn",
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "done", Faults: faults("lost_after_commit"), Want: failure("outcome_unknown"), Sent: num(1), Attempts: num(1)},
				{Op: "call", Key: "b", Applies: "done", Want: failure("not_sent"), Sent: num(0), Attempts: num(1)},
			},
		},
		{
			Name: "one connection: the server shut down", Over: "conn",
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "done", Faults: faults("shutdown_after_commit"), Want: failure("outcome_unknown"), Sent: num(1), Attempts: num(1)},
			},
		},
		{
			Name: "one connection, closed before the call", Over: "conn", Closed: true,
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "done", Want: failure("not_sent"), Sent: num(0), Attempts: num(1)},
			},
		},
		{
			Name: "the caller's transaction: a serialization failure is the caller's", Over: "tx",
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "done", Faults: faults("serialization_failure"), Want: failureCode("server", "40001"), Sent: num(2), Attempts: num(2)},
			},
		},
		{
			Name: "the caller's transaction: lost is never sent again", Over: "tx",
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "done", Faults: faults("lost_after_commit"), Want: failure("outcome_unknown"), Sent: num(1), Attempts: num(1)},
			},
		},
		{
			Name: "the caller's transaction failed earlier: its first error", Over: "tx",
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "error:23505", Want: failureCode("server", "23505"), Sent: num(1), Attempts: num(1)},
				{Op: "call", Key: "b", Applies: "done", Want: failureCode("server", "25P02"), Sent: num(1), Attempts: num(1)},
			},
		},
		{
			Name: "cancelled by the caller while out: never sent again", Over: "pool",
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "done", Faults: faults("cancelled"), Want: failure("outcome_unknown"), Sent: num(1), Attempts: num(1)},
			},
		},
		{
			Name: "the caller's deadline passed while out: never sent again", Over: "pool",
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "done", Faults: faults("timeout"), Want: failure("outcome_unknown"), Sent: num(1), Attempts: num(1)},
			},
		},
		{
			Name: "cancelled by the caller before the call", Over: "pool", CancelledBefore: true,
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "done", Want: failure("not_sent"), Sent: num(0), Attempts: num(0)},
			},
		},
		{
			Name: "a bulk with a refusal and an error in the middle", Over: "pool", Bulk: true, Before: []string{"k0"},
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "done", Want: result("done", no)},
				{Op: "call", Key: "b", Applies: "refused:too_much", Want: refusal("too_much", no)},
				{Op: "call", Key: "c", Applies: "error:22023", Want: failureCode("bad_call", "22023")},
				{Op: "call", Key: "k0", Applies: "done", Want: result("done_before", no)},
				{Op: "call", Key: "x", ClientError: true, Want: failure("client")},
				{Op: "call", Key: "d", Applies: "done", Faults: faults("serialization_failure"), Want: result("done", no)},
				{Op: "status", Key: "k0", Want: state("posted")},
				{Op: "status", Key: "none", Want: state("")},
				{Op: "call", Key: "e", Applies: "refused:too_much", Want: refusal("too_much", no)},
				{Op: "call", Key: "f", Applies: "done", Want: result("done", no)},
			},
		},
		{
			Name: "one connection: a bulk with a refusal and an error in the middle", Over: "conn", Bulk: true,
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "done", Want: result("done", no)},
				{Op: "call", Key: "b", Applies: "refused:too_much", Want: refusal("too_much", no)},
				{Op: "call", Key: "c", Applies: "error:22023", Want: failureCode("bad_call", "22023")},
				{Op: "call", Key: "d", Applies: "done", Faults: faults("deadlock_detected"), Want: result("done", no)},
				{Op: "call", Key: "e", Applies: "done", Want: result("done", no)},
			},
		},
		{
			Name: "a bulk lost in the middle, over a pool that sends it again", Over: "pool", Bulk: true,
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "done", Want: result("done", nil)},
				{Op: "call", Key: "b", Applies: "done", Faults: faults("lost_after_commit"), Want: result("done", yes)},
				{Op: "call", Key: "c", Applies: "done", Want: result("done", nil)},
			},
		},
		{
			Name: "a bulk lost before commit in the middle, over a pool that sends it again", Over: "pool", Bulk: true,
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "refused:too_much", Want: refusal("too_much", nil)},
				{Op: "call", Key: "b", Applies: "done", Faults: faults("lost_before_commit"), Want: result("done", yes)},
				{Op: "call", Key: "c", Applies: "refused:too_much", Want: refusal("too_much", nil)},
			},
		},
		{
			Name: "one connection: a bulk lost in the middle", Over: "conn", Bulk: true,
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "done", Want: oneOf(result("done", no), failure("outcome_unknown"))},
				{Op: "call", Key: "b", Applies: "done", Faults: faults("lost_after_commit"), Want: failure("outcome_unknown")},
				{Op: "call", Key: "c", Applies: "done", Want: failure("outcome_unknown")},
			},
		},
		{
			Name: "a bulk of one call lost, over a pool that sends it again", Over: "pool", Bulk: true,
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "done", Faults: faults("lost_after_commit"), Want: result("done", yes)},
			},
		},
		{
			Name: "a pool of one connection: lost, then sent again on a new one", Over: "pool_of_one",
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "done", Faults: faults("lost_after_commit"), Want: result("done", yes), Sent: num(2), Attempts: num(2)},
			},
		},
		{
			Name: "a pool of one connection: a bulk lost in the middle", Over: "pool_of_one", Bulk: true,
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "done", Want: result("done", nil)},
				{Op: "call", Key: "b", Applies: "done", Faults: faults("lost_before_commit"), Want: result("done", yes)},
				{Op: "call", Key: "c", Applies: "refused:too_much", Want: refusal("too_much", nil)},
			},
		},
		{
			Name: "a pool that lends no connection at first: the call is sent again, not marked resent", Over: "pool", NotLent: 1,
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "done", Want: result("done", no), Sent: num(1), Attempts: num(2)},
			},
		},
		{
			Name: "a bulk over a pool that lends no connection at first", Over: "pool", Bulk: true, NotLent: 1,
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "done", Want: result("done", no)},
				{Op: "call", Key: "b", Applies: "refused:too_much", Want: refusal("too_much", no)},
				{Op: "call", Key: "c", Applies: "done", Want: result("done", no)},
			},
		},
		{
			Name: "a bulk lost in the middle, over a pool that sends nothing again", Over: "pool", Bulk: true, ResendForMs: ms(0),
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "done", Want: oneOf(result("done", no), failure("outcome_unknown"))},
				{Op: "call", Key: "b", Applies: "done", Faults: faults("lost_after_commit"), Want: failure("outcome_unknown")},
				{Op: "call", Key: "c", Applies: "done", Want: oneOf(result("done", no), failure("outcome_unknown"))},
			},
		},
		{
			Name: "a bulk in the caller's transaction, a serialization failure in the middle", Over: "tx", Bulk: true,
			Calls: []vCall{
				{Op: "call", Key: "a", Applies: "done", Want: oneOf(result("done", no), failureCode("server", "40001"))},
				{Op: "call", Key: "b", Applies: "done", Faults: faults("serialization_failure"), Want: failureCode("server", "40001")},
				{Op: "call", Key: "c", Applies: "done", Want: oneOf(failureCode("server", "25P02"), failureCode("server", "40001"))},
			},
		},
	}
}

// expireCases are expire's: it goes again as an operation does, with its
// call id, so that a sending again answers what the call gave back in
// all and gives back no more than its max. The balance read after some
// of them says how many holds are left to give back (held out).
func expireCases() []vCase {
	ex := func(max int, f []vFault, w vWant, sent, attempts int) vCall {
		return vCall{Op: "expire", Key: "expire", Max: max, Faults: f, Want: w, Sent: num(sent), Attempts: num(attempts)}
	}
	left := func(posted, heldOut int64) vCall {
		return vCall{Op: "balance", Key: "acc", Want: balance(posted, 0, heldOut), Sent: num(1), Attempts: num(1)}
	}
	return []vCase{
		{Name: "expire gives back up to its max, and another expire the rest", Over: "pool", Due: 5, Calls: []vCall{
			ex(3, nil, count(3), 1, 1), ex(3, nil, count(2), 1, 1), ex(3, nil, count(0), 1, 1)}},
		{Name: "expire: serialization failures and a deadlock, then given back", Over: "pool", Due: 5, Calls: []vCall{
			ex(3, faults("serialization_failure", "deadlock_detected"), count(3), 3, 3), left(0, 2)}},
		{Name: "expire: serialization failures until the attempts run out", Over: "pool", Due: 5, Calls: []vCall{
			ex(3, times(30, "serialization_failure"), failureCode("server", "40001"), 30, 30), left(0, 5)}},
		{Name: "expire lost after commit: the second sending answers what the first gave back, and gives back no more", Over: "pool", Due: 5, Calls: []vCall{
			ex(3, faults("lost_after_commit"), count(3), 2, 2), left(0, 2)}},
		{Name: "expire lost before commit: the second sending gives back", Over: "pool", Due: 5, Calls: []vCall{
			ex(3, faults("lost_before_commit"), count(3), 2, 2), left(0, 2)}},
		{Name: "expire: the server shut down after commit", Over: "pool", Due: 2, Calls: []vCall{
			ex(3, faults("shutdown_after_commit"), count(2), 2, 2), left(0, 0)}},
		{Name: "expire lost after commit twice", Over: "pool", Due: 5, Calls: []vCall{
			ex(3, faults("lost_after_commit", "lost_after_commit"), count(3), 3, 3), left(0, 2)}},
		{Name: "expire: no connection lent, then given back", Over: "pool", Due: 5, Calls: []vCall{
			ex(3, faults("not_connected"), count(3), 1, 2)}},
		{Name: "expire lost, then no connection lent until the resending ends", Over: "pool", Due: 5, Calls: []vCall{
			ex(3, then(faults("lost_before_commit"), slow(3, "not_connected", 10000)), failure("outcome_unknown"), 1, 4), left(0, 5)}},
		{Name: "expire, resending off: lost after commit is answered at once, and the next expire gives back the rest", Over: "pool", ResendForMs: ms(0), Due: 5, Calls: []vCall{
			ex(3, faults("lost_after_commit"), failure("outcome_unknown"), 1, 1), ex(3, nil, count(2), 1, 1)}},
		{Name: "one connection: expire after a serialization failure", Over: "conn", Due: 5, Calls: []vCall{
			ex(3, faults("serialization_failure"), count(3), 2, 2)}},
		{Name: "one connection: expire lost is answered at once", Over: "conn", Due: 5, Calls: []vCall{
			ex(3, faults("lost_after_commit"), failure("outcome_unknown"), 1, 1)}},
		{Name: "one connection, closed before expire", Over: "conn", Closed: true, Due: 5, Calls: []vCall{
			ex(3, nil, failure("not_sent"), 0, 1)}},
		{Name: "the caller's transaction: expire's serialization failure is the caller's", Over: "tx", Due: 5, Calls: []vCall{
			ex(3, faults("serialization_failure"), failureCode("server", "40001"), 2, 2)}},
		{Name: "the caller's transaction: expire lost is never sent again", Over: "tx", Due: 5, Calls: []vCall{
			ex(3, faults("lost_after_commit"), failure("outcome_unknown"), 1, 1)}},
		{Name: "expire cancelled by the caller while out: never sent again", Over: "pool", Due: 5, Calls: []vCall{
			ex(3, faults("cancelled"), failure("outcome_unknown"), 1, 1)}},
		{Name: "the caller's deadline passed while expire was out: never sent again", Over: "pool", Due: 5, Calls: []vCall{
			ex(3, faults("timeout"), failure("outcome_unknown"), 1, 1)}},
		{Name: "expire cancelled by the caller before it was sent", Over: "pool", CancelledBefore: true, Due: 5, Calls: []vCall{
			ex(3, nil, failure("not_sent"), 0, 0)}},
		{Name: "expire, resending off: no connection lent is answered at once", Over: "pool", ResendForMs: ms(0), Due: 5, Calls: []vCall{
			ex(3, faults("not_connected"), failure("not_sent"), 0, 1), left(0, 5)}},
	}
}

// readCases are the reads': a balance, a hold's status and a call's
// entries (the history reads' statement, open holds and balance at a
// time go as the last two do: rows, or one row). A read is sent again
// after a failure to serialize, and over a pool after a lost connection,
// as an operation is; it carries no call id.
func readCases() []vCase {
	read := func(op, key string, f []vFault, w vWant, sent, attempts int) vCall {
		return vCall{Op: op, Key: key, Faults: f, Want: w, Sent: num(sent), Attempts: num(attempts)}
	}
	posted := balance(1, 0, 2)
	return []vCase{
		{Name: "a balance read at once", Over: "pool", Before: []string{"k0"}, Due: 2, Calls: []vCall{
			read("balance", "acc", nil, posted, 1, 1)}},
		{Name: "a balance read: serialization failures and a deadlock, then read", Over: "pool", Before: []string{"k0"}, Due: 2, Calls: []vCall{
			read("balance", "acc", faults("serialization_failure", "deadlock_detected", "serialization_failure"), posted, 4, 4)}},
		{Name: "a balance read: serialization failures until the attempts run out", Over: "pool", Calls: []vCall{
			read("balance", "acc", times(30, "serialization_failure"), failureCode("server", "40001"), 30, 30)}},
		{Name: "a balance read lost: read again over the pool", Over: "pool", Before: []string{"k0"}, Due: 2, Calls: []vCall{
			read("balance", "acc", faults("lost_before_commit"), posted, 2, 2)}},
		{Name: "a balance read: the server shut down while it was out", Over: "pool", Before: []string{"k0"}, Due: 2, Calls: []vCall{
			read("balance", "acc", faults("shutdown_after_commit"), posted, 2, 2)}},
		{Name: "a balance read: no connection lent, then read", Over: "pool", Before: []string{"k0"}, Due: 2, Calls: []vCall{
			read("balance", "acc", faults("not_connected"), posted, 1, 2)}},
		{Name: "a balance read lost, then no connection lent until the resending ends", Over: "pool", Calls: []vCall{
			read("balance", "acc", then(faults("lost_before_commit"), slow(3, "not_connected", 10000)), failure("outcome_unknown"), 1, 4)}},
		{Name: "a balance read, resending off: lost is answered at once", Over: "pool", ResendForMs: ms(0), Calls: []vCall{
			read("balance", "acc", faults("lost_before_commit"), failure("outcome_unknown"), 1, 1)}},
		{Name: "resending off: a call lost after commit, and a balance read says it was applied", Over: "pool", ResendForMs: ms(0), Calls: []vCall{
			{Op: "call", Key: "a", Applies: "done", Faults: faults("lost_after_commit"), Want: failure("outcome_unknown"), Sent: num(1), Attempts: num(1)},
			read("balance", "acc", nil, balance(1, 0, 0), 1, 1)}},
		{Name: "one connection: a balance read after a serialization failure", Over: "conn", Before: []string{"k0"}, Due: 2, Calls: []vCall{
			read("balance", "acc", faults("serialization_failure"), posted, 2, 2)}},
		{Name: "one connection: a balance read lost is answered at once", Over: "conn", Calls: []vCall{
			read("balance", "acc", faults("lost_before_commit"), failure("outcome_unknown"), 1, 1),
			read("balance", "acc", nil, failure("not_sent"), 0, 1)}},
		{Name: "one connection, closed before a balance read", Over: "conn", Closed: true, Calls: []vCall{
			read("balance", "acc", nil, failure("not_sent"), 0, 1)}},
		{Name: "the caller's transaction: a read's serialization failure is the caller's", Over: "tx", Calls: []vCall{
			read("balance", "acc", faults("serialization_failure"), failureCode("server", "40001"), 2, 2)}},
		{Name: "the caller's transaction failed earlier: a read answers its first error", Over: "tx", Calls: []vCall{
			{Op: "call", Key: "a", Applies: "error:23505", Want: failureCode("server", "23505"), Sent: num(1), Attempts: num(1)},
			read("balance", "acc", nil, failureCode("server", "25P02"), 1, 1)}},
		{Name: "a balance read cancelled by the caller while out", Over: "pool", Calls: []vCall{
			read("balance", "acc", faults("cancelled"), failure("outcome_unknown"), 1, 1)}},
		{Name: "the caller's deadline passed while a balance read was out", Over: "pool", Calls: []vCall{
			read("balance", "acc", faults("timeout"), failure("outcome_unknown"), 1, 1)}},
		{Name: "a balance read cancelled by the caller before it was sent", Over: "pool", CancelledBefore: true, Calls: []vCall{
			read("balance", "acc", nil, failure("not_sent"), 0, 0)}},
		{Name: "a balance read, resending off: no connection lent is answered at once", Over: "pool", ResendForMs: ms(0), Calls: []vCall{
			read("balance", "acc", faults("not_connected"), failure("not_sent"), 0, 1)}},
		{Name: "a status read: a serialization failure, then read", Over: "pool", Before: []string{"k0"}, Calls: []vCall{
			read("status", "k0", faults("serialization_failure"), state("posted"), 2, 2)}},
		{Name: "a status read lost: read again over the pool", Over: "pool", Before: []string{"k0"}, Calls: []vCall{
			read("status", "k0", faults("lost_before_commit"), state("posted"), 2, 2),
			read("status", "k1", faults("lost_before_commit"), state(""), 2, 2)}},
		{Name: "one connection: a status read lost is answered at once", Over: "conn", Before: []string{"k0"}, Calls: []vCall{
			read("status", "k0", faults("lost_before_commit"), failure("outcome_unknown"), 1, 1)}},
		{Name: "the caller's deadline passed while a status read was out", Over: "pool", Before: []string{"k0"}, Calls: []vCall{
			read("status", "k0", faults("timeout"), failure("outcome_unknown"), 1, 1)}},
		{Name: "a call's entries read at once", Over: "pool", Before: []string{"k0"}, Calls: []vCall{
			read("entries", "k0", nil, entries(2), 1, 1), read("entries", "k1", nil, entries(0), 1, 1)}},
		{Name: "a call's entries: a serialization failure, then read", Over: "pool", Before: []string{"k0"}, Calls: []vCall{
			read("entries", "k0", faults("serialization_failure", "deadlock_detected"), entries(2), 3, 3)}},
		{Name: "a call's entries: serialization failures until the attempts run out", Over: "pool", Before: []string{"k0"}, Calls: []vCall{
			read("entries", "k0", times(30, "serialization_failure"), failureCode("server", "40001"), 30, 30)}},
		{Name: "a call's entries lost: read again over the pool", Over: "pool", Before: []string{"k0"}, Calls: []vCall{
			read("entries", "k0", faults("lost_before_commit", "shutdown_after_commit"), entries(2), 3, 3)}},
		{Name: "a call's entries lost while their rows were read: read again whole over the pool", Over: "pool", Before: []string{"k0"}, Calls: []vCall{
			read("entries", "k0", faults("lost_while_reading"), entries(2), 2, 2)}},
		{Name: "one connection: a call's entries lost while their rows were read", Over: "conn", Before: []string{"k0"}, Calls: []vCall{
			read("entries", "k0", faults("lost_while_reading"), failure("outcome_unknown"), 1, 1)}},
		{Name: "a call's entries, resending off: lost is answered at once", Over: "pool", ResendForMs: ms(0), Before: []string{"k0"}, Calls: []vCall{
			read("entries", "k0", faults("lost_before_commit"), failure("outcome_unknown"), 1, 1)}},
		{Name: "resending off: a call lost after commit, and its entries say it was applied", Over: "pool", ResendForMs: ms(0), Calls: []vCall{
			{Op: "call", Key: "a", Applies: "done", Faults: faults("lost_after_commit"), Want: failure("outcome_unknown"), Sent: num(1), Attempts: num(1)},
			read("entries", "a", nil, entries(2), 1, 1)}},
		{Name: "resending off: a call lost before commit, and its entries say it was not applied", Over: "pool", ResendForMs: ms(0), Calls: []vCall{
			{Op: "call", Key: "a", Applies: "done", Faults: faults("lost_before_commit"), Want: failure("outcome_unknown"), Sent: num(1), Attempts: num(1)},
			read("entries", "a", nil, entries(0), 1, 1)}},
		{Name: "one connection: a call's entries after a serialization failure", Over: "conn", Before: []string{"k0"}, Calls: []vCall{
			read("entries", "k0", faults("serialization_failure"), entries(2), 2, 2)}},
		{Name: "one connection: a call's entries lost are answered at once", Over: "conn", Before: []string{"k0"}, Calls: []vCall{
			read("entries", "k0", faults("lost_before_commit"), failure("outcome_unknown"), 1, 1)}},
		{Name: "one connection, closed before a call's entries are read", Over: "conn", Closed: true, Calls: []vCall{
			read("entries", "k0", nil, failure("not_sent"), 0, 1)}},
		{Name: "the caller's transaction: a serialization failure of a call's entries is the caller's", Over: "tx", Before: []string{"k0"}, Calls: []vCall{
			read("entries", "k0", faults("serialization_failure"), failureCode("server", "40001"), 2, 2)}},
		{Name: "the caller's deadline passed while a call's entries were read", Over: "pool", Before: []string{"k0"}, Calls: []vCall{
			read("entries", "k0", faults("timeout"), failure("outcome_unknown"), 1, 1)}},
	}
}
