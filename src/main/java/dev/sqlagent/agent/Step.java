package dev.sqlagent.agent;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

/** One node of the graph: what it announces when it starts, and what it makes of the run's state. */
interface Step {

  /** The data of the node's started event, or null when it announces nothing before it runs. */
  JsonObject started(RunState s);

  /** The next state: the node's findings, the node that follows and the event this one ends with. */
  Future<RunState> apply(RunState s);
}
