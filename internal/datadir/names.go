package datadir

import "strings"

// FileName returns s (a scope, a writer) as one file name, the rule of
// every folder in the data directory named after a value (the text
// memory's scope folders, the knowledge base's hidden writer and scope
// folders): every byte but lower-case ASCII letters, digits, '-' and '_'
// becomes %XX (upper-case hex). So no name is empty-looking, hidden, "."
// or "..", or holds a separator, and two values differing only by case
// ("Notes" and "notes"; Matrix rooms "!AbC" and "!abc") stay two folders
// on a file system that ignores case (macOS's and Windows' defaults).
// Its owner bounds the length. ParseFileName reverses it.
func FileName(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// ParseFileName returns the value FileName made name from; false for a
// name FileName does not give (each value has one spelling).
func ParseFileName(name string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		if i+2 >= len(name) {
			return "", false
		}
		hi, lo := unhex(name[i+1]), unhex(name[i+2])
		if hi < 0 || lo < 0 {
			return "", false
		}
		b.WriteByte(byte(hi<<4 | lo))
		i += 2
	}
	out := b.String()
	return out, FileName(out) == name
}

func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}
