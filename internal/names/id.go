package names

import (
	"regexp"
	"strings"
)

// idPattern is the shape of a plugin id, less the rules on '_' that
// ValidID adds.
var idPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{1,40}$`)

// IDRule says in words which ids ValidID accepts, for error messages.
const IDRule = "2 to 41 lowercase letters, digits, '-' or '_', starting with a letter or digit, without \"__\" or a final '_'"

// ValidID reports whether id can be a plugin's id (and so its name): 2 to
// 41 lowercase letters, digits, '-' and '_' (HomeAgent's ids, like
// ai_image), starting with a letter or digit. "__" is never part of one,
// nor is a final '_': a tool's full name <plugin>__<tool> is split at its
// first "__", so ai__x__y or ai___y would be read wrongly.
func ValidID(id string) bool {
	return idPattern.MatchString(id) && !strings.Contains(id, "__") && !strings.HasSuffix(id, "_")
}
