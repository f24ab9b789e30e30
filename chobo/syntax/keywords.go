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
// the parser derives its reserved words from it. The time words come from
// the table of time units, which also knows their lengths.
var Keywords = append([]Keyword{
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
}, timeKeywords()...)

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
