import { Errors } from '../http/errors.js';
import { chatbotChoice } from '../html/layout.js';
import type { ChatbotRepository } from '../repositories/chatbot-repository.js';

/**
 * What the pages under a chatbot's Setup tab (tracking settings, revenue settings) share: the
 * page frame (the switcher shows the chatbot, and switching keeps the tab) and the chatbot of
 * the account, or the 404 page.
 */
export function setupPages(chatbots: ChatbotRepository) {
  return {
    frame: async (accountId: string, chatbotId: string) => ({
      chatbots: (await chatbots.listForAccount(accountId)).map(chatbotChoice), current: { chatbotId, view: 'setup' as const },
    }),
    own: async (accountId: string, id: string) => {
      const row = await chatbots.findForAccount(accountId, id);
      if (!row) throw Errors.notFound();
      return row;
    },
  };
}
