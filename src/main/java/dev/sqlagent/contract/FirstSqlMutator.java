package dev.sqlagent.contract;

import java.util.Optional;

/**
 * Evaluation's fault injection: rewrites the model's first SQL of a question in a recorded way so the
 * repair loop has something to repair. Absent in normal service.
 */
@FunctionalInterface
public interface FirstSqlMutator {

  record Mutation(String fault, String sql) {}

  /** The mutated SQL, or empty when no fault applies; {@code key} chooses the fault deterministically. */
  Optional<Mutation> mutate(String sql, String key);
}
