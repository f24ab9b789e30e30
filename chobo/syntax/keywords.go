package syntax

// Place says where a keyword is read as one.
type Place int

const (
	// LineStart words open a line.
	LineStart Place = iota
	// Modifier words qualify a line after its first word.
	Modifier
	// TypeWord is the built-in type.
	TypeWord
	// TimeWord words are keywords only right after `expires after <n>`;
	// anywhere else they are ordinary names (a parameter may be `day`).
	TimeWord
)

func (p Place) String() string {
	switch p {
	case LineStart:
		return "line start"
	case Modifier:
		return "modifier"
	case TypeWord:
		return "type"
	case TimeWord:
		return "time"
	}
	return "unknown"
}

// Keyword is one entry of the keyword table. Phrases such as "at least"
// are one entry; each of their words is reserved.
type Keyword struct {
	Phrase string
	Place  Place
}

// Keywords is the one table of keywords. Documentation and tests read it;
// the parser derives its reserved words from it.
var Keywords = []Keyword{
	{"book", LineStart},
	{"description", LineStart},
	{"unit", LineStart},
	{"account", LineStart},
	{"transfer", LineStart},
	{"key", LineStart},
	{"pending", LineStart},
	{"move", LineStart},
	{"scale", Modifier},
	{"incl_tax", Modifier},
	{"excl_tax", Modifier},
	{"outside", Modifier},
	{"at least", Modifier},
	{"at most", Modifier},
	{"refused as", Modifier},
	{"expires after", Modifier},
	{"never expires", Modifier},
	{"from", Modifier},
	{"to", Modifier},
	{"string", TypeWord},
	{"second", TimeWord},
	{"seconds", TimeWord},
	{"minute", TimeWord},
	{"minutes", TimeWord},
	{"hour", TimeWord},
	{"hours", TimeWord},
	{"day", TimeWord},
	{"days", TimeWord},
}

// reserved holds every word that can never be a name.
var reserved = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range Keywords {
		if k.Place == TimeWord {
			continue
		}
		start := 0
		for i := 0; i <= len(k.Phrase); i++ {
			if i == len(k.Phrase) || k.Phrase[i] == ' ' {
				m[k.Phrase[start:i]] = true
				start = i + 1
			}
		}
	}
	return m
}()

// Reserved reports whether word may not be used as a name.
func Reserved(word string) bool { return reserved[word] }

// timeSeconds maps each time word to its length in seconds.
var timeSeconds = map[string]int64{
	"second": 1, "seconds": 1,
	"minute": 60, "minutes": 60,
	"hour": 3600, "hours": 3600,
	"day": 86400, "days": 86400,
}

// TimeUnitSeconds returns how many seconds one of the time word stands
// for, and false when word is not a time word.
func TimeUnitSeconds(word string) (int64, bool) {
	s, ok := timeSeconds[word]
	return s, ok
}
