package store

import "sync"

// sessionCache remembers sessions by id and by channel and chat, so that
// finding one (every API request on a session, every turn's first step)
// does not read the database. An entry never goes stale: a session's id,
// channel and chat never change once it exists, and sessions are never
// deleted (ClearSession deletes their messages), by this process or by
// another on the same file. A feature that deletes or renames sessions
// must forget them here. Only sessions found are kept; a miss reads the
// database again, so a session another process opened is found.
type sessionCache struct {
	mu    sync.Mutex
	byID  map[int64]Session
	byKey map[[2]string]int64
}

// maxCachedSessions bounds the cache: past it, it starts again empty.
const maxCachedSessions = 4096

func (c *sessionCache) byChat(channel, chatID string) (Session, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	id, ok := c.byKey[[2]string{channel, chatID}]
	return Session{ID: id, Channel: channel, ChatID: chatID}, ok
}

func (c *sessionCache) get(id int64) (Session, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.byID[id]
	return s, ok
}

func (c *sessionCache) add(s Session) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byID == nil || len(c.byID) >= maxCachedSessions {
		c.byID, c.byKey = map[int64]Session{}, map[[2]string]int64{}
	}
	c.byID[s.ID] = s
	c.byKey[[2]string{s.Channel, s.ChatID}] = s.ID
}
