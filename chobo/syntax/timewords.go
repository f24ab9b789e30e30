package syntax

import (
	"fmt"
	"strings"

	"github.com/chobo-lang/chobo/chobo/diag"
)

// timeUnit is one unit a length of time is written in. The parser, the
// resolver's hints, the scenario format and the examples in diagnostics
// all read this one table, so a unit added here is added everywhere.
type timeUnit struct {
	one, many string // the keywords: "minute", "minutes"
	ja        string // how Japanese text names the unit
	seconds   int64
}

// timeUnits runs from the shortest unit to the longest; lists in messages
// keep this order.
var timeUnits = []timeUnit{
	{"second", "seconds", "秒", 1},
	{"minute", "minutes", "分", 60},
	{"hour", "hours", "時間", 3600},
	{"day", "days", "日", 86400},
}

// timeKeywords lists the time words as keyword table entries, singular
// before plural.
func timeKeywords() []Keyword {
	var out []Keyword
	for _, u := range timeUnits {
		out = append(out, Keyword{u.one, TimeWord}, Keyword{u.many, TimeWord})
	}
	return out
}

// timeSeconds maps each time word, singular or plural, to its length.
var timeSeconds = func() map[string]int64 {
	m := map[string]int64{}
	for _, u := range timeUnits {
		m[u.one], m[u.many] = u.seconds, u.seconds
	}
	return m
}()

// TimeUnitSeconds returns how many seconds one of the time word stands
// for, and false when word is not a time word.
func TimeUnitSeconds(word string) (int64, bool) {
	s, ok := timeSeconds[word]
	return s, ok
}

// TimeWordChoice names the time words as the choice a reader has to make:
// "seconds, minutes, hours or days". Japanese text keeps the keywords,
// which are written in English in every book.
func TimeWordChoice() diag.Text {
	var many []string
	for _, u := range timeUnits {
		many = append(many, u.many)
	}
	last := len(many) - 1
	return diag.T(strings.Join(many[:last], ", ")+" or "+many[last],
		strings.Join(many, "、")+" のどれか")
}

// TimeWords lists the time words a book writes (their plural forms),
// joined by sep: "seconds・minutes・hours・days".
func TimeWords(sep string) string {
	var many []string
	for _, u := range timeUnits {
		many = append(many, u.many)
	}
	return strings.Join(many, sep)
}

// TimeWordJa is how Japanese text names the unit a time word stands
// for ("minutes" is 分), and false when word is not a time word.
func TimeWordJa(word string) (string, bool) {
	for _, u := range timeUnits {
		if word == u.one || word == u.many {
			return u.ja, true
		}
	}
	return "", false
}

// TimeUnitsJa names the units in Japanese prose: "秒・分・時間・日".
func TimeUnitsJa() string {
	var ja []string
	for _, u := range timeUnits {
		ja = append(ja, u.ja)
	}
	return strings.Join(ja, "・")
}

// FormatDuration writes a length of time the way a book or a scenario
// writes it, in the largest unit that divides it so that a generated
// scenario reads like a written one: "30 minutes", "1 day", "90 seconds".
func FormatDuration(secs int64) string {
	u := timeUnits[0]
	for _, v := range timeUnits[1:] {
		if secs%v.seconds == 0 {
			u = v
		}
	}
	if n := secs / u.seconds; n != 1 {
		return fmt.Sprintf("%d %s", n, u.many)
	}
	return "1 " + u.one
}
