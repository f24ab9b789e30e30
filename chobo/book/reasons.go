package book

// Reasons chobo itself gives when it refuses a call. A bound may not take
// one of these names, or a caller could not tell the two apart.
const (
	KeyConflict    = "key_conflict"
	AlreadyRefused = "already_refused"
	SameAccount    = "same_account"
	NoSuchHold     = "no_such_hold"
	AlreadyPosted  = "already_posted"
	AlreadyVoided  = "already_voided"
	Expired        = "expired"
	OverHold       = "over_hold"
)

// BuiltinReasons lists the reasons above in a fixed order.
var BuiltinReasons = []string{
	KeyConflict, AlreadyRefused, SameAccount, NoSuchHold,
	AlreadyPosted, AlreadyVoided, Expired, OverHold,
}

// IsBuiltinReason reports whether name is one of chobo's own reasons.
func IsBuiltinReason(name string) bool {
	for _, r := range BuiltinReasons {
		if r == name {
			return true
		}
	}
	return false
}

// MaxAmount is the largest amount and the largest bound magnitude: what a
// PostgreSQL bigint holds.
const MaxAmount = int64(1<<63 - 1)

// MaxHoldSeconds is the longest hold lifetime: TigerBeetle keeps timeouts
// in 32 bits of seconds.
const MaxHoldSeconds = int64(1<<32 - 1)
