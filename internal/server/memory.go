package server

// memoryRoutes: graph memory: browse, search, edit, merge, purge. Not written yet: it answers no route.
func (s *Server) memoryRoutes() []route { return nil }
