package dev.sqlagent.agent;

import io.vertx.core.Future;
import dev.sqlagent.contract.StepData;

/** One node of the graph: what it announces when it starts, and what it makes of the run's state. */
abstract class Step {

  /** The run the node serves: its question, options, services and events. */
  final RunContext run;

  Step(RunContext run) {
    this.run = run;
  }

  /** The data of the node's started event, or null (the default) when it announces nothing before it runs. */
  StepData started(RunState s) {
    return null;
  }

  /** The next state: the node's findings and the event it ends with; the graph picks the node that follows. */
  abstract Future<RunState> apply(RunState s);
}
