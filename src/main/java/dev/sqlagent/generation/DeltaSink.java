package dev.sqlagent.generation;

/** Receives the text of a streamed completion as it arrives. */
public interface DeltaSink {

  DeltaSink NONE = text -> {};

  void delta(String text);

  /** A new attempt starts after a failed one: text sent so far belongs to a dead attempt. */
  default void restart() {}
}
