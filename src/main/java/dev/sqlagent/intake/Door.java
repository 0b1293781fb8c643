package dev.sqlagent.intake;

import dev.sqlagent.users.User;

/**
 * Where a question came in: the door's name as answers and the query log label it ({@code AskRequest.SOURCES}), who
 * asks (null without a users file) and from which address (null where there is none: the command line, evaluation).
 */
public record Door(String source, User user, String client) {}
