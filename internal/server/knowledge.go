package server

// knowledgeRoutes: the knowledge base. Not written yet: it answers no route.
func (s *Server) knowledgeRoutes() []route { return nil }
