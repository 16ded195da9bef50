// Types of the njs module, for the test that runs it beside the sidecar's negotiation.
interface NjsRequest {
  headersIn: Record<string, string | undefined>;
  uri: string;
  variables: Record<string, string | undefined>;
}
declare const negotiate: {
  twin(r: NjsRequest): '.md' | '.html';
  lang(r: NjsRequest): string;
  siteLang(r: NjsRequest): string;
  errorVary(r: NjsRequest): string;
  declaredTooLarge(r: NjsRequest): '1' | '';
  takesCoding(r: NjsRequest): '1' | '';
};
export default negotiate;
