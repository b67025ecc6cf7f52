import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";

import { ApiClient } from "../src/api/client";
import { FactsPanel, groupFacts } from "../src/components/FactsPanel";
import { FakeServer, makeFact } from "./fakes";

function setup(server: FakeServer) {
  const client = new ApiClient({ fetchImpl: server.fetch });
  const onOpenSource = vi.fn<(sessionId: string, entryId: string) => void>();
  render(<FactsPanel client={client} onOpenSource={onOpenSource} />);
  return { onOpenSource };
}

describe("FactsPanel", () => {
  it("groups the current facts by kind, allergies first, with earlier values marked as past", async () => {
    const server = new FakeServer();
    const old = makeFact({ value: "10 mg", text: "Medication: lisinopril 10 mg", valid_to: "2026-05-08T10:00:00Z" });
    const now = makeFact({ value: "20 mg", text: "Medication: lisinopril 20 mg", status: "corrected" });
    const allergy = makeFact({ kind: "allergy", key: "allergy:sulfa", value: "sulfa", text: "Allergy: sulfa (reaction: hives)" });
    server.facts = [old, now, allergy];
    setup(server);
    const panel = await screen.findByRole("region", { name: "What unimem remembers" });
    await waitFor(() => expect(within(panel).getAllByTestId("fact")).toHaveLength(2));
    const groups = within(panel).getAllByTestId("fact-group");
    expect(groups.map((g) => within(g).getByRole("heading").textContent)).toEqual(["Allergies", "Medications"]);
    const med = within(groups[1]!).getByTestId("fact");
    expect(within(med).getByTestId("fact-text")).toHaveTextContent("Medication: lisinopril 20 mg");
    expect(within(med).getByTestId("fact-status")).toHaveTextContent("corrected");
    expect(within(med).getByTestId("fact-past")).toHaveTextContent("previously: 10 mg (until 2026-05-08)");
    expect(within(panel).queryAllByTestId("fact-text").map((t) => t.textContent)).not.toContain(
      "Medication: lisinopril 10 mg",
    );
    expect(server.count("GET", "/v1/me/facts?include_history=true&reveal=true")).toHaveLength(1);
  });

  it("confirms, corrects and deletes a fact through the API", async () => {
    const user = userEvent.setup();
    const server = new FakeServer();
    const fact = makeFact();
    server.facts = [fact];
    setup(server);
    await user.click(await screen.findByTestId("fact-confirm"));
    await waitFor(() => expect(screen.getByTestId("fact-status")).toHaveTextContent("confirmed"));
    expect(server.count("POST", `/v1/me/facts/${fact.id}/confirm`)).toHaveLength(1);

    await user.click(screen.getByTestId("fact-correct"));
    const input = screen.getByTestId("fact-value");
    await user.clear(input);
    await user.type(input, "20 mg");
    await user.click(screen.getByTestId("fact-save"));
    await waitFor(() => expect(screen.getByTestId("fact-text")).toHaveTextContent("lisinopril 20 mg"));
    const [sent] = server.count("POST", `/v1/me/facts/${fact.id}/correct`);
    expect(sent?.body).toEqual({ value: "20 mg" });
    expect(screen.getByTestId("fact-past")).toHaveTextContent("previously: 10 mg");

    await user.click(screen.getByTestId("fact-delete"));
    await waitFor(() => expect(screen.queryAllByTestId("fact")).toHaveLength(0));
    expect(screen.getByText("Nothing yet.")).toBeInTheDocument();
  });

  it("links each fact to the turn it came from", async () => {
    const user = userEvent.setup();
    const server = new FakeServer();
    server.facts = [makeFact({ session_id: "visit-2", source_entry_ids: ["e42"] })];
    const { onOpenSource } = setup(server);
    await user.click(await screen.findByTestId("fact-source"));
    expect(onOpenSource).toHaveBeenCalledWith("visit-2", "e42");
  });

  it("shows the server's error", async () => {
    const server = new FakeServer();
    server.failWith = 503;
    setup(server);
    expect(await screen.findByRole("alert")).toHaveTextContent("failed with 503");
  });
});

describe("groupFacts", () => {
  it("puts conditions pinned as diagnoses with the found ones and unknown kinds last", () => {
    const groups = groupFacts([
      makeFact({ kind: "hobby" }),
      makeFact({ kind: "diagnosis" }),
      makeFact({ kind: "condition" }),
      makeFact({ kind: "allergy" }),
    ]);
    expect(groups.map((g) => [g.title, g.facts.length])).toEqual([
      ["Allergies", 1],
      ["Conditions", 2],
      ["Hobby", 1],
    ]);
  });
});
