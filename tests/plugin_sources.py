"""The source of test plugins' shared search: breadth-first search in plain Python over `SearchProblem`."""

SHORTEST = '''
from collections import deque


def _shortest(problem):
    parent = {problem.start: None}
    frontier = deque([problem.start])
    while frontier:
        state = frontier.popleft()
        if problem.is_goal(state):
            moves = []
            while parent[state] is not None:
                move, state = parent[state]
                moves.append(move)
            return moves[::-1]
        for move, child in problem.successors(state):
            if child not in parent:
                parent[child] = (move, state)
                frontier.append(child)
    return None
'''
