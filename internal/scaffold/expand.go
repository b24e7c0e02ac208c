package scaffold

import (
	"bytes"
	"fmt"
)

// expand replaces each [[.Key]] in body by data[Key]. Templates hold
// nothing else between [[ and ]], so that is all it does (text/template
// would keep every exported method of the program linked, for
// MethodByName); a key without a value, or anything else between the
// brackets, is an error.
func expand(body []byte, data map[string]string) ([]byte, error) {
	var out bytes.Buffer
	for {
		i := bytes.Index(body, []byte("[["))
		if i < 0 {
			out.Write(body)
			return out.Bytes(), nil
		}
		j := bytes.Index(body[i:], []byte("]]"))
		if j < 0 {
			return nil, fmt.Errorf("unclosed [[ at byte %d", len(out.Bytes())+i)
		}
		key := string(body[i+2 : i+j])
		if len(key) < 2 || key[0] != '.' {
			return nil, fmt.Errorf("[[%s]]: want [[.Key]]", key)
		}
		v, ok := data[key[1:]]
		if !ok {
			return nil, fmt.Errorf("no value for [[%s]]", key)
		}
		out.Write(body[:i])
		out.WriteString(v)
		body = body[i+j+2:]
	}
}
